// Controller discovery against a fake /sys/class/nvme tree, the [nvme]
// devices selection, and the libnvme device's error path without hardware.
#include <gtest/gtest.h>

#include "tests/support/config_error.hpp"
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "collectors/nvme/libnvme_device.hpp"
#include "collectors/nvme/libnvme_source.hpp"
#include "collectors/nvme_name.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;

NvmeSelection select_all() {
  NvmeSelection sel;
  sel.all = true;
  return sel;
}

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("nvmond-sysfs-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void controller(const std::string& name, const std::string& serial, const std::string& model) {
    fs::create_directories(root_ / name);
    std::ofstream(root_ / name / "serial") << serial << "\n";
    std::ofstream(root_ / name / "model") << model << "\n";
  }

  fs::path root_;
};

TEST_F(FakeSysfs, ListsControllersInNumericOrderAndSkipsOtherEntries) {
  controller("nvme10", "S10   ", "Model X");
  controller("nvme2", "S2", "Model Y   ");
  controller("nvme0", "  S0", "Model Z");
  fs::create_directories(root_ / "nvme-fabrics");
  fs::create_directories(root_ / "nvme0n1");
  const auto list = list_nvme_controllers(root_);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].path, "/dev/nvme0");
  EXPECT_EQ(list[0].name, "nvme0");
  EXPECT_EQ(list[0].serial, "S0");
  EXPECT_EQ(list[1].path, "/dev/nvme2");
  EXPECT_EQ(list[1].model, "Model Y");
  EXPECT_EQ(list[2].path, "/dev/nvme10");
  EXPECT_EQ(list[2].serial, "S10");
}

TEST_F(FakeSysfs, MissingDirectoryMeansNoControllers) { EXPECT_TRUE(list_nvme_controllers(root_ / "absent").empty()); }

TEST_F(FakeSysfs, ScanReturnsOnlySelectedControllers) {
  controller("nvme0", "S0", "M");
  controller("nvme1", "S1", "M");
  controller("nvme2", "S2", "M");
  NvmeSelection sel;
  sel.serials = {"S2"};
  sel.paths = {"/dev/nvme0"};
  LibnvmeSource source(sel, std::chrono::milliseconds(500), root_);
  const auto handles = source.scan();
  ASSERT_EQ(handles.size(), 2u);
  EXPECT_EQ(handles[0].path, "/dev/nvme0");
  EXPECT_EQ(handles[1].path, "/dev/nvme2");
  EXPECT_NE(handles[0].device, nullptr);

  LibnvmeSource all(select_all(), std::chrono::milliseconds(500), root_);
  EXPECT_EQ(all.scan().size(), 3u);
  LibnvmeSource none(NvmeSelection{}, std::chrono::milliseconds(500), root_);
  EXPECT_TRUE(none.scan().empty());
}

TEST(NvmeSelection, Selects) {
  NvmeSelection sel;
  sel.serials = {"S1"};
  sel.paths = {"/dev/nvme3"};
  EXPECT_TRUE(sel.selects("/dev/nvme9", "S1"));
  EXPECT_TRUE(sel.selects("/dev/nvme3", "other"));
  EXPECT_FALSE(sel.selects("/dev/nvme4", "S2"));
  EXPECT_FALSE(sel.selects("/dev/nvme4", ""));
  EXPECT_TRUE(select_all().selects("/dev/nvme4", ""));
}

NvmeSelection parse(const std::string& text) {
  const toml::table root = toml::parse(text);
  TableReader nvme(*root["nvme"].as_table(), "nvmond.toml", "nvme");
  return parse_nvme_selection(nvme);
}

std::string parse_error(const std::string& text) {
  return test::config_error_of([&] { parse(text); });
}

TEST(ParseNvmeSelection, AllSerialsAndPaths) {
  EXPECT_TRUE(parse("[nvme]\ndevices = \"all\"\n").all);
  const auto sel = parse("[nvme]\ndevices = [\"S1\", \"/dev/nvme2\", \"S3\"]\n");
  EXPECT_FALSE(sel.all);
  EXPECT_EQ(sel.serials, (std::vector<std::string>{"S1", "S3"}));
  EXPECT_EQ(sel.paths, (std::vector<std::string>{"/dev/nvme2"}));
  const auto absent = parse("[nvme]\nother = 1\n");
  EXPECT_FALSE(absent.all);
  EXPECT_TRUE(absent.serials.empty());
  EXPECT_TRUE(absent.paths.empty());
}

TEST(ParseNvmeSelection, ErrorsCarryFileLineColumn) {
  EXPECT_EQ(parse_error("[nvme]\ndevices = \"some\"\n"),
            "nvmond.toml:2:11: nvme.devices: expected \"all\" or an array of serial numbers and "
            "controller paths (\"/dev/nvme0\")");
  EXPECT_EQ(parse_error("[nvme]\ndevices = 3\n").substr(0, 18), "nvmond.toml:2:11: ");
  EXPECT_EQ(parse_error("[nvme]\ndevices = [\"S1\", 7]\n"),
            "nvmond.toml:2:18: devices: expected a serial number or a controller path (\"/dev/nvme0\")");
  EXPECT_EQ(parse_error("[nvme]\ndevices = [\"/dev/nvme0n1\"]\n").substr(0, 45),
            "nvmond.toml:2:12: devices: \"/dev/nvme0n1\" is ");
  EXPECT_EQ(parse_error("[nvme]\ndevices = [\"\"]\n"), "nvmond.toml:2:12: devices: empty entry");
}

TEST(ParseNvmeSelection, LeavesOtherKeysToTheCaller) {
  const toml::table root = toml::parse("[nvme]\ndevices = \"all\"\ntimeout = \"2s\"\n");
  TableReader nvme(*root["nvme"].as_table(), "nvmond.toml", "nvme");
  parse_nvme_selection(nvme);
  EXPECT_THROW(nvme.finish(), ConfigError);  // "timeout" not read yet: still the caller's
  nvme.duration("timeout");
  EXPECT_NO_THROW(nvme.finish());
}

TEST(LibnvmeDevice, MissingControllerIsAbsentWithContext) {
  LibnvmeDevice dev("/dev/nvme-nvmond-test-missing", std::chrono::milliseconds(100));
  const auto r = dev.read_smart();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, ErrorReason::absent);
  EXPECT_EQ(r.error().message,
            "nvme-nvmond-test-missing: open /dev/nvme-nvmond-test-missing: No such file or directory");
  EXPECT_EQ(dev.identify().error().reason, ErrorReason::absent);
  EXPECT_EQ(dev.read_ocp().error().reason, ErrorReason::absent);
  EXPECT_EQ(dev.read_temperature_thresholds().error().reason, ErrorReason::absent);
  // HCTMA is not known before an identify, and the identify cannot be sent.
  EXPECT_EQ(dev.read_host_thermal_management().error().reason, ErrorReason::absent);
}

TEST(LibnvmeDevice, NonNvmeCharacterDeviceIsAnIoErrorNamingTheCommand) {
  // /dev/null answers the NVMe admin ioctl with ENOTTY: the real ioctl path,
  // no hardware needed.
  if (!fs::exists("/dev/null")) GTEST_SKIP() << "no /dev/null";
  LibnvmeDevice dev("/dev/null", std::chrono::milliseconds(100));
  const auto smart = dev.read_smart();
  ASSERT_FALSE(smart.ok());
  EXPECT_EQ(smart.error().reason, ErrorReason::io);
  EXPECT_EQ(smart.error().message.rfind("null: get-log SMART (02h): ", 0), 0u) << smart.error().message;
  const auto id = dev.identify();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().message.rfind("null: identify controller (CNS 01h): ", 0), 0u);
  const auto ocp = dev.read_ocp();
  ASSERT_FALSE(ocp.ok());  // an ioctl failure is not "no OCP log"
  EXPECT_EQ(ocp.error().reason, ErrorReason::io);
  const auto th = dev.read_temperature_thresholds();
  ASSERT_FALSE(th.ok());
  EXPECT_EQ(th.error().message.rfind("null: get-features temperature threshold (04h) composite over: ", 0), 0u)
      << th.error().message;
}

TEST(LibnvmeDevice, SelfTestCommandsOnAMissingControllerAreAbsentNamingTheDevice) {
  LibnvmeDevice dev("/dev/nvme-nvmond-test-missing", std::chrono::milliseconds(100));
  const auto start = dev.start_self_test(SelfTestKind::short_test);
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->reason, ErrorReason::absent);
  EXPECT_EQ(start->message.rfind("nvme-nvmond-test-missing: open /dev/nvme-nvmond-test-missing: ", 0), 0u)
      << start->message;
  const auto abort = dev.abort_self_test();
  ASSERT_TRUE(abort.has_value());
  EXPECT_EQ(abort->reason, ErrorReason::absent);
}

TEST(LibnvmeDevice, ASelfTestIsNotSentBeforeIdentifySaysTheControllerHasIt) {
  // The identify that tells whether OACS bit 4 is set fails on /dev/null:
  // that failure is the answer, and no Device Self-test is sent blind.
  if (!fs::exists("/dev/null")) GTEST_SKIP() << "no /dev/null";
  LibnvmeDevice dev("/dev/null", std::chrono::milliseconds(100));
  const auto start = dev.start_self_test(SelfTestKind::extended_test);
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->message.rfind("null: identify controller (CNS 01h): ", 0), 0u) << start->message;
}

// The kernel's namespace node names, as the PTS targets (nvme0n1) and the
// safety guard (ng0n1) recognise them.
TEST(NvmeNamespaceName, ControllerOfBlockAndGenericNodes) {
  EXPECT_EQ(nvme_namespace_controller("nvme0n1", kNvmeBlockPrefix), "nvme0");
  EXPECT_EQ(nvme_namespace_controller("nvme12n345", kNvmeBlockPrefix), "nvme12");
  EXPECT_EQ(nvme_namespace_controller("ng3n2", kNvmeGenericPrefix), "ng3");
  EXPECT_EQ(nvme_namespace_controller("ng3n2", kNvmeBlockPrefix), std::nullopt);
  EXPECT_EQ(nvme_namespace_controller("nvme0n1", kNvmeGenericPrefix), std::nullopt);
}

TEST(NvmeNamespaceName, PartitionsControllersAndPathNodesAreNotNamespaces) {
  for (const char* name : {"nvme0n1p1", "nvme0", "nvme0n", "nvmen1", "nvme", "", "nvme0c1n1", "nvme0n1 ", "xnvme0n1",
                           "nvme-fabrics", "nvme0nn1", "nvme0N1"}) {
    EXPECT_EQ(nvme_namespace_controller(name, kNvmeBlockPrefix), std::nullopt) << name;
  }
  EXPECT_EQ(nvme_namespace_controller("ng0", kNvmeGenericPrefix), std::nullopt);
  EXPECT_EQ(nvme_namespace_controller("ng0n1p1", kNvmeGenericPrefix), std::nullopt);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
