// Every refusal reason of the safety guard, on fake sysfs/procfs trees.
#include "workloads/safety_guard.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;

class FakeSystem : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::temp_directory_path() / "nvmond-guard-XXXXXX").string();
    root_ = ::mkdtemp(t.data());
    sys_ = root_ / "sys";
    proc_ = root_ / "proc";
    fs::create_directories(sys_ / "class/block");
    fs::create_directories(proc_ / "self");
    write(proc_ / "self/mountinfo", "22 1 259:9 / / rw,relatime shared:1 - ext4 /dev/nvme9n1p1 rw\n");
    write(proc_ / "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
    fs::create_directories(root_ / "scratch");
  }
  void TearDown() override { fs::remove_all(root_); }

  static void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // A whole device with a serial and a blank (zeroed) first 128 KiB.
  fs::path disk(const std::string& name, const std::string& devnum, const std::string& serial) {
    fs::path d = sys_ / "class/block" / name;
    fs::create_directories(d / "holders");
    write(d / "dev", devnum + "\n");
    if (!serial.empty()) write(d / "device/serial", serial + "  \n");
    content(name, {});
    return d;
  }
  fs::path partition(const std::string& disk_name, const std::string& name, const std::string& devnum) {
    fs::path p = sys_ / "class/block" / disk_name / name;
    fs::create_directories(p / "holders");
    write(p / "partition", "1\n");
    write(p / "dev", devnum + "\n");
    fs::create_directory_symlink(p, sys_ / "class/block" / name);
    return p;
  }
  // A device (dm-0, md0) stacked on the disk at `held`, which lists it under holders/.
  void holder(const fs::path& held, const std::string& name, const std::string& devnum) {
    fs::create_directories(sys_ / "class/block" / name / "holders");
    write(sys_ / "class/block" / name / "dev", devnum + "\n");
    fs::create_directories(held / "holders" / name);
  }
  fs::path content(const std::string& name, const std::vector<std::pair<std::size_t, std::string>>& marks) {
    std::vector<char> bytes(128 * 1024, 0);
    for (const auto& [off, s] : marks) std::memcpy(bytes.data() + off, s.data(), s.size());
    fs::path p = root_ / ("content-" + name);
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  SafetyGuard guard(std::vector<std::string> serials = {"SN-OK"}) const {
    return SafetyGuard(SafetyConfig{std::move(serials), {(root_ / "scratch").string()}},
                       SystemRoots{sys_.string(), proc_.string()});
  }
  std::string reason_for(const std::string& name) const {
    auto e = guard().check_block_device(name, (root_ / ("content-" + name)).string());
    return e ? std::string(to_text(e->reason)) + ": " + e->message : "allowed";
  }

  fs::path root_, sys_, proc_;
};

TEST_F(FakeSystem, AllowsABlankListedDrive) {
  disk("nvme1n1", "259:0", "SN-OK");
  EXPECT_EQ(reason_for("nvme1n1"), "allowed");
}

TEST_F(FakeSystem, RefusesADriveWhosePartitionIsMounted) {
  disk("nvme9n1", "259:8", "SN-OK");
  partition("nvme9n1", "nvme9n1p1", "259:9");
  EXPECT_EQ(reason_for("nvme9n1"), "mounted: nvme9n1: nvme9n1p1 is mounted on /");
}

TEST_F(FakeSystem, RefusesADriveMountedThroughLvm) {
  holder(disk("nvme2n1", "259:2", "SN-OK"), "dm-0", "253:0");
  write(proc_ / "self/mountinfo", "30 1 253:0 / /data rw - xfs /dev/mapper/vg-data rw\n");
  EXPECT_EQ(reason_for("nvme2n1"), "mounted: nvme2n1: dm-0 is mounted on /data");
}

TEST_F(FakeSystem, RefusesAnUnmountedHolder) {
  holder(disk("nvme3n1", "259:3", "SN-OK"), "md0", "9:0");
  EXPECT_EQ(reason_for("nvme3n1").substr(0, 7), "holder:");
}

TEST_F(FakeSystem, RefusesSwap) {
  disk("nvme4n1", "259:4", "SN-OK");
  write(proc_ / "swaps", "Filename\tType\tSize\tUsed\tPriority\n/dev/nvme4n1  partition 100 0 -2\n");
  EXPECT_EQ(reason_for("nvme4n1"), "swap: nvme4n1: nvme4n1 is in use as swap");
}

TEST_F(FakeSystem, RefusesADriveWithPartitions) {
  disk("nvme5n1", "259:5", "SN-OK");
  partition("nvme5n1", "nvme5n1p1", "259:6");
  EXPECT_EQ(reason_for("nvme5n1").substr(0, 15), "has_partitions:");
}

TEST_F(FakeSystem, RefusesAPartitionItself) {
  disk("nvme6n1", "259:10", "SN-OK");
  partition("nvme6n1", "nvme6n1p1", "259:11");
  content("nvme6n1p1", {});
  EXPECT_EQ(reason_for("nvme6n1p1").substr(0, 10), "partition:");
}

TEST_F(FakeSystem, RefusesEachKnownSignature) {
  disk("nvme7n1", "259:12", "SN-OK");
  const std::vector<std::tuple<std::string, std::size_t, std::string>> cases = {
      {"gpt", 512, "EFI PART"},
      {"ext4", 1080, "\x53\xef"},
      {"xfs", 0, "XFSB"},
      {"btrfs", 65600, "_BHRfS_M"},
      {"lvm2", 512, "LABELONE"},
      {"swap", 4086, "SWAPSPACE2"},
      {"linux_raid", 4096, "\xfc\x4e\x2b\xa9"},
      {"luks", 0, "LUKS\xba\xbe"},
      {"dos_mbr", 510, "\x55\xaa"}};
  for (const auto& [name, off, magic] : cases) {
    content("nvme7n1", {{off, magic}});
    EXPECT_EQ(reason_for("nvme7n1").substr(0, 10 + name.size() + 20),
              ("signature: nvme7n1: carries a " + name + " signature").substr(0, 10 + name.size() + 20))
        << name;
  }
}

TEST_F(FakeSystem, RefusesADriveNotInTheAllowList) {
  disk("nvme8n1", "259:13", "SN-PRODUCTION");
  EXPECT_EQ(reason_for("nvme8n1"), "not_allowed: nvme8n1: serial \"SN-PRODUCTION\" is not in [safety] allow_serials");
}

TEST_F(FakeSystem, MatchesWwidWhenThereIsNoSerial) {
  fs::path d = disk("sda", "8:0", "");
  write(d / "device/wwid", "naa.5000c500a1b2c3d4\n");
  auto e = SafetyGuard(SafetyConfig{{"naa.5000c500a1b2c3d4"}, {}}, SystemRoots{sys_.string(), proc_.string()})
               .check_block_device("sda", (root_ / "content-sda").string());
  EXPECT_FALSE(e) << e->message;
}

TEST_F(FakeSystem, RefusesADriveWithoutSerial) {
  disk("vdb", "254:16", "");
  EXPECT_EQ(reason_for("vdb").substr(0, 10), "no_serial:");
}

TEST_F(FakeSystem, RefusesAnUnknownDevice) { EXPECT_EQ(reason_for("nvme42n1").substr(0, 15), "unknown_device:"); }

TEST_F(FakeSystem, LoopDeviceIsJudgedByItsBackingFile) {
  fs::path d = disk("loop3", "7:3", "");
  write(d / "loop/backing_file", (root_ / "scratch/img").string() + "\n");
  EXPECT_EQ(reason_for("loop3"), "allowed");
  write(d / "loop/backing_file", "/var/lib/important.img\n");
  EXPECT_EQ(reason_for("loop3").substr(0, 21), "outside_allowed_dirs:");
}

TEST_F(FakeSystem, FilesOnlyInsideAllowedDirectories) {
  const SafetyGuard g = guard();
  EXPECT_FALSE(g.check_file((root_ / "scratch/new-file").string()));
  auto outside = g.check_file((root_ / "elsewhere").string());
  ASSERT_TRUE(outside);
  EXPECT_EQ(outside->reason, ErrorReason::outside_allowed_dirs);
  // ".." and symlinks cannot lead out.
  EXPECT_TRUE(g.check_file((root_ / "scratch/../elsewhere").string()));
  fs::create_directory_symlink(root_, root_ / "scratch/up");
  EXPECT_TRUE(g.check_file((root_ / "scratch/up/elsewhere").string()));
  // The allowed directory itself is not a file inside it.
  EXPECT_TRUE(g.check_file((root_ / "scratch").string()));
}

TEST_F(FakeSystem, RefusesAnActiveSwapFile) {
  const std::string f = (fs::weakly_canonical(root_) / "scratch/swapfile").string();
  write(proc_ / "swaps", "Filename\tType\tSize\tUsed\tPriority\n" + f + " file 100 0 -2\n");
  auto e = guard().check_file(f);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->reason, ErrorReason::swap);
}

TEST_F(FakeSystem, CheckWriteTargetRoutesFilesAndRefusesCharacterDevices) {
  const SafetyGuard g = guard();
  EXPECT_FALSE(g.check_write_target((root_ / "scratch/f").string()));
  auto e = g.check_write_target("/dev/null");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->reason, ErrorReason::unsupported_target);
}

TEST(FindSignature, BlankAndShortHeadsHaveNone) {
  std::vector<std::byte> zeros(70 * 1024);
  EXPECT_FALSE(find_signature(zeros));
  EXPECT_FALSE(find_signature(std::span<const std::byte>(zeros.data(), 100)));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
