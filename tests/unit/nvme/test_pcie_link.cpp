// PCIe link attributes as the kernel prints them, and a fake sysfs tree read
// through LibnvmeDevice's own reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include "collectors/nvme/libnvme_device.hpp"
#include "collectors/nvme/pcie_link.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;

// Verbatim from a 6.1 kernel (aer_dev_correctable trimmed of some lines).
constexpr const char* kCorrectable =
    "RxErr 0\nBadTLP 2\nBadDLLP 1\nRollover 0\nTimeout 0\nNonFatalErr 0\n"
    "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 3\n";
constexpr const char* kNonfatal = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nTOTAL_ERR_NONFATAL 0\n";
constexpr const char* kFatal = "Undefined 0\nDLP 0\nTOTAL_ERR_FATAL 1\n";

TEST(PcieLinkText, SpeedsAsEachKernelPrintsThem) {
  EXPECT_EQ(parse_link_speed_gts("8.0 GT/s PCIe\n"), 8.0);
  EXPECT_EQ(parse_link_speed_gts("16.0 GT/s PCIe"), 16.0);
  EXPECT_EQ(parse_link_speed_gts("2.5 GT/s PCIe"), 2.5);
  EXPECT_EQ(parse_link_speed_gts("8 GT/s\n"), 8.0);  // before 5.0
  EXPECT_EQ(parse_link_speed_gts("Unknown\n"), std::nullopt);
  EXPECT_EQ(parse_link_speed_gts("Unknown speed"), std::nullopt);
  EXPECT_EQ(parse_link_speed_gts(""), std::nullopt);
  EXPECT_EQ(parse_link_speed_gts("fast GT/s"), std::nullopt);
  EXPECT_EQ(parse_link_speed_gts("-8.0 GT/s PCIe"), std::nullopt);
}

TEST(PcieLinkText, Widths) {
  EXPECT_EQ(parse_link_width("4\n"), 4u);
  EXPECT_EQ(parse_link_width("16"), 16u);
  EXPECT_EQ(parse_link_width("0\n"), std::nullopt);  // the kernel could not read the link
  EXPECT_EQ(parse_link_width("x4"), std::nullopt);
  EXPECT_EQ(parse_link_width(""), std::nullopt);
}

TEST(PcieLinkText, AerTotals) {
  EXPECT_EQ(parse_aer_total(kCorrectable, "TOTAL_ERR_COR"), 3u);
  EXPECT_EQ(parse_aer_total(kNonfatal, "TOTAL_ERR_NONFATAL"), 0u);
  EXPECT_EQ(parse_aer_total(kFatal, "TOTAL_ERR_FATAL"), 1u);
  EXPECT_EQ(parse_aer_total(kFatal, "TOTAL_ERR_COR"), std::nullopt);
  EXPECT_EQ(parse_aer_total("TOTAL_ERR_CORX 5\n", "TOTAL_ERR_COR"), std::nullopt);
}

TEST(PcieLinkText, DegradedOnlyWhenBothEndsAreKnown) {
  PcieLinkFiles f{"8.0 GT/s PCIe\n", "16.0 GT/s PCIe\n", "4\n", "4\n", kCorrectable, kNonfatal, kFatal};
  PcieLink link = parse_pcie_link(f);
  EXPECT_TRUE(link.degraded());  // trained at gen3 on a gen4 link
  EXPECT_EQ(link.aer_correctable, 3u);
  EXPECT_EQ(link.aer_fatal, 1u);
  f.current_link_speed = "16.0 GT/s PCIe";
  f.current_link_width = "2";
  EXPECT_TRUE(parse_pcie_link(f).degraded());  // x2 of x4
  f.current_link_width = "4";
  EXPECT_FALSE(parse_pcie_link(f).degraded());
  f.current_link_speed = "Unknown";
  EXPECT_FALSE(parse_pcie_link(f).degraded());
  EXPECT_EQ(parse_pcie_link(f).current_speed_gts, std::nullopt);
  f.aer_dev_fatal.reset();
  EXPECT_EQ(parse_pcie_link(f).aer_fatal, std::nullopt);
}

TEST(PcieLinkText, RandomTextNeverThrows) {
  std::mt19937 rng(7);
  const std::string alphabet = "0123456789. GT/sPCIeUnknown_ERTOAL\n-x";
  for (int i = 0; i < 5000; ++i) {
    std::string s(rng() % 24, ' ');
    for (auto& c : s) c = alphabet[rng() % alphabet.size()];
    PcieLinkFiles f{s, s, s, s, s, s, s};
    const PcieLink link = parse_pcie_link(f);
    if (link.current_speed_gts) {
      EXPECT_GT(*link.current_speed_gts, 0);
    }
    if (link.current_width) {
      EXPECT_GT(*link.current_width, 0u);
    }
  }
}

class PcieLinkSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("nvmond-pcie-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& controller, const std::string& file, const std::string& text) {
    fs::create_directories(root_ / controller / "device");
    std::ofstream(root_ / controller / "device" / file) << text;
  }
  fs::path root_;
};

TEST_F(PcieLinkSysfs, ReadsTheControllersLinkThroughTheDevice) {
  write("nvme0", "current_link_speed", "16.0 GT/s PCIe\n");
  write("nvme0", "max_link_speed", "16.0 GT/s PCIe\n");
  write("nvme0", "current_link_width", "2\n");
  write("nvme0", "max_link_width", "4\n");
  write("nvme0", "aer_dev_correctable", kCorrectable);
  // No aer_dev_nonfatal / aer_dev_fatal: a kernel without AER for the port.
  LibnvmeDevice dev("/dev/nvme0", std::chrono::milliseconds(100), root_);
  const auto r = dev.read_pcie_link();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  const PcieLink& link = **r;
  EXPECT_EQ(link.current_speed_gts, 16.0);
  EXPECT_EQ(link.current_width, 2u);
  EXPECT_EQ(link.max_width, 4u);
  EXPECT_TRUE(link.degraded());
  EXPECT_EQ(link.aer_correctable, 3u);
  EXPECT_EQ(link.aer_nonfatal, std::nullopt);
}

TEST_F(PcieLinkSysfs, NoLinkAttributesIsNoLink) {
  fs::create_directories(root_ / "nvme1" / "device");
  LibnvmeDevice dev("/dev/nvme1", std::chrono::milliseconds(100), root_);
  const auto r = dev.read_pcie_link();
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  EXPECT_FALSE(read_pcie_link(root_, "nvme9").has_value());  // no controller at all
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
