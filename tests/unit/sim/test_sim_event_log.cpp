// The simulated drive's Persistent Event log: a power-on event when new, a
// thermal excursion at each rise to WCTEMP with the drive's time, the
// injected excursion once, all kept across a save and load.
#include <gtest/gtest.h>

#include <chrono>

#include "sim/sim_device.hpp"
#include "sim_test_util.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

std::vector<const PelEvent*> of_type(const PersistentEventLog& log, PelEventType type) {
  std::vector<const PelEvent*> out;
  for (const auto& e : log.events) {
    if (e.header.type == static_cast<std::uint8_t>(type)) out.push_back(&e);
  }
  return out;
}
// Pointers into a temporary log would dangle.
std::vector<const PelEvent*> of_type(PersistentEventLog&& log, PelEventType type) = delete;

WallTime time_of(const PelEvent& e) {
  return WallTime{
      std::chrono::duration_cast<WallTime::duration>(std::chrono::milliseconds(e.header.timestamp.milliseconds()))};
}

TEST(SimEventLog, ANewDriveHasItsPowerOnEventOnly) {
  ManualClock clock;
  auto model = std::make_shared<DriveModel>(test::named("datacenter"), clock.wall());
  SimDevice dev(model, clock);
  const auto log = dev.read_persistent_event_log();
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->header.log_id, 0x0D);
  EXPECT_EQ(log->header.serial, "SN0");
  ASSERT_EQ(log->events.size(), 1u);
  EXPECT_EQ(log->header.total_events, 1u);
  EXPECT_TRUE(std::holds_alternative<PelPowerOnReset>(log->events[0].data));
  EXPECT_TRUE(log->events[0].header.timestamp.host_set());
  EXPECT_TRUE(log->header.supports(0x0D));
}

TEST(SimEventLog, EachRiseToTheWarningTemperatureIsAnExcursionAtItsTime) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  spec.warning_temp_c = 45;  // under the 49 °C its full load settles at
  DriveModel m(spec, clock.wall());
  std::optional<WallTime> crossed;
  test::run_workload(m, clock, 10min, 4 << 20, IoOp::write, true, [&](const test::Sample& s) {
    if (!crossed && s.celsius >= spec.warning_temp_c) crossed = clock.wall();
  });
  ASSERT_TRUE(crossed) << "the workload never heated the drive to WCTEMP";
  const auto log = m.persistent_event_log();
  auto hot = of_type(log, PelEventType::thermal_excursion);
  ASSERT_EQ(hot.size(), 1u);
  const auto& data = std::get<PelThermalExcursion>(hot[0]->data);
  EXPECT_EQ(data.threshold_celsius, static_cast<std::uint8_t>(spec.warning_temp_c));
  EXPECT_LE(time_of(*hot[0]), *crossed + 1s);
  EXPECT_GE(time_of(*hot[0]), *crossed - 1min);

  // Staying hot is the same excursion; cooling down and heating again is another.
  clock.advance(2h);
  m.advance_to(clock.wall());
  ASSERT_LT(m.composite_celsius(), spec.warning_temp_c);
  test::run_workload(m, clock, 10min, 4 << 20, IoOp::write, true, [](const test::Sample&) {});
  const auto again = m.persistent_event_log();
  EXPECT_EQ(of_type(again, PelEventType::thermal_excursion).size(), 2u);
}

TEST(SimEventLog, TheInjectedExcursionIsRecordedOnceAndSurvivesASave) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  const WallTime at = clock.wall() + 30min;
  spec.thermal_excursion_at = at;
  DriveModel a(spec, clock.wall());
  a.advance_to(clock.wall() + 10min);
  const auto early = a.persistent_event_log();
  EXPECT_TRUE(of_type(early, PelEventType::thermal_excursion).empty());
  a.advance_to(clock.wall() + 1h);
  const auto after = a.persistent_event_log();
  auto hot = of_type(after, PelEventType::thermal_excursion);
  ASSERT_EQ(hot.size(), 1u);
  EXPECT_EQ(time_of(*hot[0]), at);

  DriveModel b(spec, clock.wall() - 5h);  // a restarted daemon
  ASSERT_FALSE(b.load_state(a.save_state()).has_value());
  b.advance_to(clock.wall() + 3h);
  const auto log = b.persistent_event_log();
  EXPECT_EQ(of_type(log, PelEventType::thermal_excursion).size(), 1u);
  EXPECT_EQ(of_type(log, PelEventType::power_on_reset).size(), 1u);
  const auto before = a.persistent_event_log();
  ASSERT_EQ(log.events.size(), before.events.size());
  for (std::size_t i = 0; i < log.events.size(); ++i)
    EXPECT_EQ(log.events[i].fingerprint, before.events[i].fingerprint);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
