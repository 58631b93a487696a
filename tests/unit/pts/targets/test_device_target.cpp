// A real target that is an NVMe namespace reads its drive and purges it
// through the namespace's controller (the Device boundary); here the target
// is a temp file and the controller a fake.
#include <gtest/gtest.h>

#include <fstream>

#include "pts/targets/device_target.hpp"
#include "tests/support/fake_controller.hpp"
#include "tests/support/jobs.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::uint64_t kBytes = 1 << 20;

struct Fixture {
  Fixture() {
    std::ofstream(target) << std::string(kBytes, 'x');
    script->identity.serial = "SN-NVME7";
    script->identity.model = "Fake NVMe";
    script->identity.wctemp_k = 343;
    script->identity.cctemp_k = 353;
    script->smart.composite_temperature_k = 323;
  }
  std::unique_ptr<DeviceTarget> open(const NamespaceOpener& opener) {
    auto t = DeviceTarget::open(target, guard, opener, test::uring_engines());
    if (!t) throw std::runtime_error(t.error().message);
    return std::move(*t);
  }
  test::TempDir dir{"pts-device-target"};
  std::string target = dir.path() + "/ns.img";
  SafetyGuard guard{SafetyConfig{{}, {dir.path()}}};
  std::shared_ptr<test::ControllerScript> script = std::make_shared<test::ControllerScript>();
};

TEST(DeviceTarget, ANamespaceIsPurgedByAFormatOfItThroughItsController) {
  Fixture f;
  auto t = f.open(test::fake_namespace(f.script, 3));
  auto purged = t->purge();
  ASSERT_TRUE(purged) << purged.error().message;
  EXPECT_EQ(purged->method, "format");
  EXPECT_EQ(f.script->formatted, (std::vector<std::uint32_t>{3}));
}

TEST(DeviceTarget, AFormatTheControllerRefusesFallsBackAndTheOutcomeSaysWhoRefusedWhat) {
  Fixture f;
  f.script->format_error =
      Error{ErrorReason::nvme_status,
            "nvme7: format NVM namespace 3 (80h), user data erase: NVMe status 0x2 (Invalid Field)"};
  auto t = f.open(test::fake_namespace(f.script, 3));
  auto purged = t->purge();
  ASSERT_TRUE(purged) << purged.error().message;
  EXPECT_EQ(purged->method, "deallocate");
  EXPECT_NE(purged->detail.find("format: nvme7: format NVM namespace 3 (80h), user data erase: NVMe status 0x2"),
            std::string::npos)
      << purged->detail;
}

TEST(DeviceTarget, ANamespaceOfUnknownIdIsNeverSentAFormat) {
  Fixture f;
  auto t = f.open(test::fake_namespace(f.script, std::nullopt));
  auto purged = t->purge();
  ASSERT_TRUE(purged) << purged.error().message;
  EXPECT_EQ(purged->method, "deallocate");
  EXPECT_TRUE(f.script->formatted.empty());
  EXPECT_NE(purged->detail.find("format: the namespace id is unknown"), std::string::npos) << purged->detail;
}

TEST(DeviceTarget, ATargetThatIsNoNamespaceIsDeallocatedAsBefore) {
  Fixture f;
  auto t = f.open({});
  auto purged = t->purge();
  ASSERT_TRUE(purged) << purged.error().message;
  EXPECT_EQ(purged->method, "deallocate");
  EXPECT_EQ(purged->detail, "hole punched over 1048576 bytes of the file");
  EXPECT_EQ(t->identity().serial, "file:" + f.target);
  EXPECT_FALSE(t->health());
}

// nvme-cli, libnvme and the exporter all read 343 K as 70 °C: so does a run.
TEST(DeviceTarget, TemperaturesAreKelvinLessTheSame273AsTheExporters) {
  Fixture f;
  auto t = f.open(test::fake_namespace(f.script));
  EXPECT_EQ(t->identity().serial, "SN-NVME7");
  EXPECT_EQ(t->identity().warning_temp_c, 70.0);
  EXPECT_EQ(t->identity().critical_temp_c, 80.0);
  auto h = t->health();
  ASSERT_TRUE(h);
  EXPECT_EQ(h->temperature_c, 50.0);
}

// What the run records against PTS-E's "write cache disabled": the
// controller's own answer, or that nothing could tell.
TEST(DeviceTarget, TheWriteCacheStateComesFromIdentifyThenGetFeatures) {
  Fixture f;
  auto none = f.open(test::fake_namespace(f.script));
  EXPECT_EQ(none->write_cache().enabled, std::optional<bool>(false));  // VWC bit clear: no cache to enable
  EXPECT_NE(none->write_cache().source.find("no volatile write cache"), std::string::npos);
  f.script->identity.vwc = 1;
  f.script->write_cache_enabled = true;
  auto on = f.open(test::fake_namespace(f.script));
  EXPECT_EQ(on->write_cache().enabled, std::optional<bool>(true));
  EXPECT_NE(on->write_cache().source.find("enabled"), std::string::npos);
  f.script->write_cache_enabled.reset();  // the controller refuses the Get Features
  auto refused = f.open(test::fake_namespace(f.script));
  EXPECT_FALSE(refused->write_cache().enabled);
  EXPECT_NE(refused->write_cache().source.find("Invalid Field"), std::string::npos);
}

TEST(DeviceTarget, AFileCannotTellItsWriteCacheNorHasALogicalBlockSize) {
  Fixture f;
  auto t = f.open({});
  EXPECT_FALSE(t->write_cache().enabled);
  EXPECT_NE(t->write_cache().source.find(f.target), std::string::npos);
  EXPECT_EQ(t->identity().logical_block_bytes, 0u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
