// The simulated drive's controller-initiated telemetry read through the
// real NVMe decoder (sim and collectors/nvme together).
#include <gtest/gtest.h>

#include <string>

#include "collectors/nvme/telemetry_log.hpp"
#include "sim/drive_model.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

const WallTime kT0 = std::chrono::sys_days(std::chrono::year(2026) / 1 / 1) + 12h;

// The simulated drive writes its header bytes itself: the real decoder must
// read back the header it reports.
TEST(SimTelemetry, TheDrivesBytesDecodeToItsHeaderAndANewCaptureEachInterval) {
  SimDriveSpec spec = sim_profile("generic");
  spec.name = "tel";
  spec.serial = "SIM-TEL";
  spec.telemetry_interval = 10min;
  DriveModel model(spec, kT0);
  EXPECT_FALSE(model.telemetry_header().data_available());
  model.advance_to(kT0 + 25min);
  const TelemetryHeader h = model.telemetry_header();
  EXPECT_TRUE(h.data_available());
  EXPECT_EQ(h.controller_generation, 2);
  for (unsigned area = 1; area <= 3; ++area) {
    const TelemetryLog log = model.telemetry_log(area);
    EXPECT_EQ(log.bytes.size(), (kSimTelemetryAreaLastBlock[area - 1] + 1u) * 512u);
    auto decoded = decode_telemetry_header(log.bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(*decoded, h);
  }
  const TelemetryLog log = model.telemetry_log(3);
  const std::string reason(log.bytes.begin() + 384, log.bytes.begin() + 384 + 21);
  EXPECT_EQ(reason, "sim SIM-TEL capture 2");
  const std::string block(log.bytes.begin() + 512, log.bytes.begin() + 512 + 34);
  EXPECT_EQ(block, "SIMTELEMETRY SIM-TEL gen 2 block 1");
  spec.telemetry_interval = Duration::zero();
  DriveModel quiet(spec, kT0);
  quiet.advance_to(kT0 + 24h);
  EXPECT_FALSE(quiet.telemetry_header().data_available());
  EXPECT_EQ(quiet.telemetry_header().controller_generation, 0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
