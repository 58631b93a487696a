// A drive's summary (what `nvmonctl status` and the soak scheduler's thermal
// gate read) travels beside the metrics as typed values, made from the decoded
// health data: no metric family is parsed back, so renaming or dropping one
// cannot change what the gate sees.
#include <gtest/gtest.h>

#include <map>

#include "polling/poller.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

// A drive at 343 K (70 °C) with WCTEMP 348 K (75 °C), 7 % used, and the
// spare and temperature warnings set. `fail_smart` makes every SMART read
// fail after the first.
class HotDevice final : public Device {
 public:
  explicit HotDevice(bool fail_smart_after_first = false) : fail_after_first_(fail_smart_after_first) {}
  Result<DriveInfo> identify() override {
    ControllerIdentity c;
    c.serial = "SN-HOT";
    c.model = "Hot Model";
    c.wctemp_k = 348;
    return drive_info(c, "fake:hot", "fake");
  }
  Result<SmartLog> read_smart() override {
    if (fail_after_first_ && reads_++ > 0)
      return Error{ErrorReason::io, "fake:hot: get-log SMART (02h): injected failure"};
    SmartLog s;
    s.composite_temperature_k = 343;
    s.percentage_used = 7;
    s.critical_warning = kWarnSpare | kWarnTemperature;
    return s;
  }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake: format NVM: not faked"};
  }

 private:
  bool fail_after_first_;
  int reads_ = 0;
};

// An observer that adds no families at all, only its typed verdict.
PollObservation throttling_without_families(const DriveInfo&, const HealthSnapshot&) {
  PollObservation out;
  out.throttling = true;
  return out;
}

void poll_once(boost::asio::io_context& io) {
  io.run_one();  // the tick hands the poll to the device's thread
  io.run_one();  // its outcome comes back and is published
}

// `nvmonctl status` names a drive whose link trained below its maximum; a
// link the kernel could not read is no warning.
TEST(DriveSummary, ALinkBelowItsMaximumIsDegradedAndAnUnknownOneIsNot) {
  ControllerIdentity c;
  c.serial = "SN-LINK";
  const DriveInfo info = drive_info(c, "fake:link", "fake");
  HealthSnapshot snap;
  EXPECT_FALSE(summarize_drive(info, true, &snap, false).link_degraded);  // no link read
  snap.pcie = PcieLink{8.0, 8.0, 2u, 4u, std::nullopt, std::nullopt, std::nullopt};
  EXPECT_TRUE(summarize_drive(info, true, &snap, false).link_degraded);
  snap.pcie = PcieLink{8.0, 16.0, 4u, 4u, std::nullopt, std::nullopt, std::nullopt};
  EXPECT_TRUE(summarize_drive(info, true, &snap, false).link_degraded);
  snap.pcie = PcieLink{16.0, 16.0, 4u, 4u, std::nullopt, std::nullopt, std::nullopt};
  EXPECT_FALSE(summarize_drive(info, true, &snap, false).link_degraded);
  snap.pcie = PcieLink{std::nullopt, 16.0, std::nullopt, 4u, std::nullopt, std::nullopt, std::nullopt};
  EXPECT_FALSE(summarize_drive(info, true, &snap, false).link_degraded);
  EXPECT_FALSE(summarize_drive(info, false, nullptr, false).link_degraded);
}

// What pages critical besides the SMART bits is named too: a composite at
// CCTEMP, a failed self-test (not an aborted one), a firmware panic, and a
// wear-out projection within 30 days once a day of history backs it.
TEST(DriveSummary, TheConditionsThatPageCriticalAreNamed) {
  ControllerIdentity c;
  c.serial = "SN-PAGE";
  c.cctemp_k = 358;
  const DriveInfo info = drive_info(c, "fake:page", "fake");
  HealthSnapshot snap;
  snap.smart.composite_temperature_k = 357;
  EXPECT_TRUE(summarize_drive(info, true, &snap, false).conditions.empty());
  snap.smart.composite_temperature_k = 358;
  snap.self_test = SelfTestLog{0, 0, {SelfTestResult{.status = 0x22}}};  // extended, aborted by a reset
  EXPECT_EQ(summarize_drive(info, true, &snap, false).conditions, std::vector<std::string>{"temperature_critical"});
  snap.self_test->results.insert(snap.self_test->results.begin(), SelfTestResult{.status = 0x27, .segment = 5});
  snap.ocp_recovery = OcpErrorRecoveryLog{.panic_id = 0x1234};
  EXPECT_EQ(summarize_drive(info, true, &snap, false).conditions,
            (std::vector<std::string>{"temperature_critical", "self_test_failed", "firmware_panic"}));

  const WallTime now{std::chrono::hours(24 * 365 * 50)};
  WearView wear;
  wear.projected_wearout = now + std::chrono::hours(24 * 29);
  wear.windows[kRecentWindow].covered = std::chrono::hours(23);
  EXPECT_FALSE(wearout_imminent(wear, now));  // less than a day behind the 7-day rate
  wear.windows[kRecentWindow].covered = std::chrono::hours(24);
  EXPECT_TRUE(wearout_imminent(wear, now));
  wear.projected_wearout = now + std::chrono::hours(24 * 31);
  EXPECT_FALSE(wearout_imminent(wear, now));
}

TEST(DriveSummary, ThePollerPublishesTheDecodedHealthBesideTheFamilies) {
  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock clock;
  DevicePoller poller(io, "fake:hot", std::make_unique<HotDevice>(), PollSettings{1h, 1h}, clock, out,
                      throttling_without_families);
  poller.start();
  poll_once(io);

  const auto drives = out.drives();
  ASSERT_EQ(drives.size(), 1u);
  const DriveSummary& d = drives[0];
  EXPECT_EQ(d.serial, "SN-HOT");
  EXPECT_EQ(d.model, "Hot Model");
  EXPECT_EQ(d.path, "fake:hot");
  EXPECT_TRUE(d.up);
  EXPECT_EQ(d.composite_c, 70.0);
  EXPECT_EQ(d.warning_c, 75.0);
  EXPECT_EQ(d.percentage_used, 0.07);
  EXPECT_EQ(d.critical_warnings, (std::vector<std::string>{"spare", "temperature"}));
  EXPECT_TRUE(d.throttling) << "the analytics' verdict reaches the gate with no nvme_thermal_throttling family";

  const auto gate = drive_for_target(drives, "fake:hot", {});
  ASSERT_TRUE(gate.has_value());
  EXPECT_EQ(gate->serial, "SN-HOT");
  EXPECT_EQ(gate->composite_c, 70.0);
  EXPECT_EQ(gate->warning_c, 75.0);
  EXPECT_TRUE(gate->throttling);
}

TEST(DriveSummary, AFailedPollLeavesTheIdentityAndLimitsButNoStaleHealth) {
  boost::asio::io_context io;
  PublishedMetrics out;
  ManualClock clock;
  DevicePoller poller(io, "fake:hot", std::make_unique<HotDevice>(true), PollSettings{1h, 1h}, clock, out,
                      throttling_without_families);
  poller.start();
  poll_once(io);
  ASSERT_TRUE(poller.up());
  clock.advance(1h);  // the next poll, whose SMART read fails
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (poller.up() && std::chrono::steady_clock::now() < give_up) io.run_one_for(1s);

  ASSERT_FALSE(poller.up());
  const auto drives = out.drives();
  ASSERT_EQ(drives.size(), 1u);
  EXPECT_FALSE(drives[0].up);
  EXPECT_EQ(drives[0].warning_c, 75.0);
  EXPECT_EQ(drives[0].composite_c, std::nullopt);
  EXPECT_EQ(drives[0].percentage_used, std::nullopt);
  EXPECT_TRUE(drives[0].critical_warnings.empty());
  EXPECT_FALSE(drives[0].throttling);
}

// One sample of `name`{serial="SN-X", sensor="composite"}.
prometheus::MetricFamily temperature_family(const std::string& name, double celsius) {
  prometheus::MetricFamily f;
  f.name = name;
  f.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric m;
  m.label = {{"serial", "SN-X"}, {"sensor", "composite"}};
  m.gauge.value = celsius;
  f.metric.push_back(m);
  return f;
}

TEST(DriveSummary, TheThermalGateSeesTheSameWhateverTheTemperatureFamilyIsCalled) {
  DriveSummary hot;
  hot.serial = "SN-X";
  hot.path = "/dev/nvme9";
  hot.up = true;
  hot.composite_c = 81;
  hot.warning_c = 80;
  for (const char* name : {"nvme_temperature_celsius", "nvme_composite_temperature_celsius"}) {
    PublishedMetrics out;
    out.publish("/dev/nvme9", {temperature_family(name, 81)}, hot);
    const auto gate = drive_for_target(out.drives(), "/dev/nvme9", {});
    ASSERT_TRUE(gate.has_value()) << name;
    EXPECT_EQ(gate->composite_c, 81.0) << name;
  }
  PublishedMetrics no_families;
  no_families.publish("/dev/nvme9", RenderedFamilies{}, hot);
  const auto gate = drive_for_target(no_families.drives(), "/dev/nvme9", {});
  ASSERT_TRUE(gate.has_value());
  EXPECT_EQ(gate->composite_c, 81.0);
}

TEST(DriveSummary, FamiliesShapedLikeADrivesHealthAreNoDrive) {
  PublishedMetrics out;
  out.publish("job", {temperature_family("nvme_temperature_celsius", 50)});
  EXPECT_TRUE(out.drives().empty());
}

TEST(DriveSummary, OneSummaryPerSerialSortedAndTheAnsweringSourceWins) {
  PublishedMetrics out;
  DriveSummary b;
  b.serial = "SN-B";
  DriveSummary a_down;
  a_down.serial = "SN-A";
  a_down.path = "/dev/nvme0";
  DriveSummary a_up = a_down;
  a_up.path = "/dev/nvme1";
  a_up.up = true;
  out.publish("/dev/nvme2", RenderedFamilies{}, b);
  out.publish("/dev/nvme0", RenderedFamilies{}, a_down);
  out.publish("/dev/nvme1", RenderedFamilies{}, a_up);
  const auto drives = out.drives();
  ASSERT_EQ(drives.size(), 2u);
  EXPECT_EQ(drives[0].serial, "SN-A");
  EXPECT_EQ(drives[0].path, "/dev/nvme1");
  EXPECT_EQ(drives[1].serial, "SN-B");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
