// The same drive reads the same temperature in /metrics and in a run's
// run.json: both convert Kelvin with collectors/health.hpp's one conversion.
#include <gtest/gtest.h>

#include <fstream>

#include "drivelog/nvme_exports.hpp"
#include "pts/targets/device_target.hpp"
#include "tests/support/fake_controller.hpp"
#include "tests/support/jobs.hpp"
#include "tests/support/samples.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(TemperatureAgreement, RunJsonAndTheExporterReadTheSameKelvinAlike) {
  test::TempDir dir{"temperature-agreement"};
  const std::string target = dir.path() + "/ns.img";
  std::ofstream(target) << std::string(1 << 20, 'x');
  const SafetyGuard guard{SafetyConfig{{}, {dir.path()}}};
  for (const int k : {273, 323, 343, 358}) {
    const auto kelvin = static_cast<std::uint16_t>(k);
    auto script = std::make_shared<test::ControllerScript>();
    script->identity.serial = "SN-T";
    script->identity.wctemp_k = kelvin;
    script->smart.composite_temperature_k = kelvin;

    DriveInfo info = drive_info(script->identity, "/dev/nvme7", "libnvme");
    HealthSnapshot snap;
    snap.smart = script->smart;
    MetricSet set;
    add_drive_info(info, LabelPrefix::of({{"serial", "SN-T"}}), set);
    add_health(snap, LabelPrefix::of({{"serial", "SN-T"}}), set);
    const auto exported = set.take();

    auto t = DeviceTarget::open(target, guard, test::fake_namespace(script), test::uring_engines());
    ASSERT_TRUE(t) << t.error().message;
    const auto health = (*t)->health();
    ASSERT_TRUE(health);
    EXPECT_EQ(health->temperature_c, test::sample(exported, "nvme_temperature_celsius", {{"sensor", "composite"}}))
        << kelvin << " K";
    EXPECT_EQ((*t)->identity().warning_temp_c,
              test::sample(exported, "nvme_temperature_limit_celsius", {{"limit", "warning"}}))
        << kelvin << " K";
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
