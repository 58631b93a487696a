// SimDevice / SimDeviceSource: the Device boundary over shared models, state
// persistence across restarts, injected faults.
#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/sim_device.hpp"
#include "core/atomic_file.hpp"
#include "sim_test_util.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using test::TempDir;

void expect_same(const SmartLog& a, const SmartLog& b) {
  EXPECT_EQ(a.critical_warning, b.critical_warning);
  EXPECT_EQ(a.composite_temperature_k, b.composite_temperature_k);
  EXPECT_EQ(a.available_spare_pct, b.available_spare_pct);
  EXPECT_EQ(a.percentage_used, b.percentage_used);
  EXPECT_EQ(a.data_units_read, b.data_units_read);
  EXPECT_EQ(a.data_units_written, b.data_units_written);
  EXPECT_EQ(a.host_read_commands, b.host_read_commands);
  EXPECT_EQ(a.host_write_commands, b.host_write_commands);
  EXPECT_EQ(a.controller_busy_minutes, b.controller_busy_minutes);
  EXPECT_EQ(a.power_cycles, b.power_cycles);
  EXPECT_EQ(a.power_on_hours, b.power_on_hours);
  EXPECT_EQ(a.thermal.warning_minutes, b.thermal.warning_minutes);
  EXPECT_EQ(a.thermal.critical_minutes, b.thermal.critical_minutes);
  EXPECT_EQ(a.sensor_temperature_k, b.sensor_temperature_k);
  EXPECT_EQ(a.thermal.tmt1_transitions, b.thermal.tmt1_transitions);
  EXPECT_EQ(a.thermal.tmt2_transitions, b.thermal.tmt2_transitions);
  EXPECT_EQ(a.thermal.tmt1_seconds, b.thermal.tmt1_seconds);
  EXPECT_EQ(a.thermal.tmt2_seconds, b.thermal.tmt2_seconds);
}

// A drive with a history: hours on, throttled, heavy writes and reads.
void age(DriveModel& m, ManualClock& clock) {
  clock.advance(5h);
  m.advance_to(clock.wall());
  test::run_workload(m, clock, 8min, 8 << 20, IoOp::write, true, [](const test::Sample&) {});
  test::run_workload(m, clock, 50ms, 4096, IoOp::read, false, [](const test::Sample&) {});
  m.set_over_threshold(1, 350);
}

TEST(SimState, SaveLoadRoundTripContinuesCounters) {
  ManualClock clock;
  SimDriveSpec spec = test::named("datacenter");
  spec.background_write_bytes_per_s = 1e8;
  DriveModel a(spec, clock.wall());
  age(a, clock);
  ASSERT_GT(a.smart().thermal.tmt2_transitions, 0u);

  DriveModel b(spec, clock.wall() - 100h);  // a restarted daemon, any start
  ASSERT_FALSE(b.load_state(a.save_state()).has_value());
  expect_same(a.smart(), b.smart());
  EXPECT_EQ(b.thresholds().over_k[1], 350);
  EXPECT_EQ(b.throttle_level(), a.throttle_level());
  EXPECT_EQ(b.ocp()->physical_media_units_written, a.ocp()->physical_media_units_written);

  // Both drives go on identically: the same hour of time and the same I/O.
  for (DriveModel* m : {&a, &b}) {
    m->advance_to(clock.wall() + 1h);
    m->io(IoOp::write, 123'456'789, false);
  }
  expect_same(a.smart(), b.smart());
  EXPECT_EQ(b.smart().power_on_hours, 6u);
}

TEST(SimState, TheSavedTextIsJsonWhateverTheSerialHolds) {
  ManualClock clock;
  const std::string serial = "SN \"quoted\" back\\slash \x01 \xc3\xa9";
  DriveModel a(test::named("consumer", "q", serial), clock.wall());
  a.io(IoOp::write, 2'000'000'000, true);
  const std::string text = a.save_state();
  ASSERT_TRUE(nlohmann::json::accept(text)) << text;
  EXPECT_EQ(nlohmann::json::parse(text).at("serial").get<std::string>(), serial);
  DriveModel b(test::named("consumer", "q", serial), clock.wall());
  ASSERT_FALSE(b.load_state(text).has_value());
  expect_same(a.smart(), b.smart());
}

TEST(SimState, RejectsAnotherDrivesStateAndGarbage) {
  ManualClock clock;
  DriveModel a(test::named("generic", "a", "SNA"), clock.wall());
  DriveModel b(test::named("generic", "b", "SNB"), clock.wall());
  a.io(IoOp::write, 1'000'000, true);
  auto err = b.load_state(a.save_state());
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->reason, ErrorReason::decode);
  EXPECT_NE(err->message.find("SNA"), std::string::npos) << err->message;
  EXPECT_EQ(b.smart().data_units_written, 0u);  // untouched
  auto garbage = b.load_state("{\"format\": \"nvmond-sim-drive\", \"version\": 1");
  ASSERT_TRUE(garbage.has_value());
  EXPECT_EQ(garbage->reason, ErrorReason::decode);
  EXPECT_EQ(b.load_state("{}")->reason, ErrorReason::decode);
}

TEST(SimState, FileHelpersWriteAtomicallyAndReportAbsence) {
  TempDir dir;
  ManualClock clock;
  DriveModel a(test::named("consumer"), clock.wall());
  a.io(IoOp::write, 5'000'000'000, true);
  const std::string path = (fs::path(dir.path()) / "state.json").string();
  auto missing = load_state_file(a, path);
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->reason, ErrorReason::absent);
  ASSERT_FALSE(save_state_file(a, path).has_value());
  ASSERT_FALSE(save_state_file(a, path).has_value());  // replaces
  // Only the target remains: no temporary left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 1);
  DriveModel b(test::named("consumer"), clock.wall());
  ASSERT_FALSE(load_state_file(b, path).has_value());
  EXPECT_EQ(b.smart().data_units_written, a.smart().data_units_written);
  auto unwritable = save_state_file(a, (fs::path(dir.path()) / "no" / "such" / "dir.json").string());
  ASSERT_TRUE(unwritable.has_value());
  EXPECT_EQ(unwritable->reason, ErrorReason::io);
}

std::vector<SimDriveSpec> two_drives() {
  return {test::named("datacenter", "dc0", "SNDC0"), test::named("consumer", "c0", "SNC0")};
}

TEST(SimSource, ScanGivesHandlesOverTheSameModels) {
  ManualClock clock;
  SimDeviceSource source(two_drives(), clock);
  auto handles = source.scan();
  ASSERT_EQ(handles.size(), 2u);
  EXPECT_EQ(handles[0].path, "sim:dc0");
  EXPECT_EQ(handles[1].path, "sim:c0");
  source.model("SNC0")->io(IoOp::write, 1'024'000, true);  // the workload engine's view
  auto smart = handles[1].device->read_smart();
  ASSERT_TRUE(smart.ok());
  EXPECT_EQ(smart->data_units_written, 2u);
  // A later scan sees the same drive, not a new one.
  auto again = source.scan();
  EXPECT_EQ(again[1].device->read_smart()->data_units_written, 2u);
  EXPECT_EQ(source.model("nope"), nullptr);

  auto info = handles[0].device->identify();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->serial, "SNDC0");
  EXPECT_EQ(info->path, "sim:dc0");
  EXPECT_EQ(info->backend, "sim");
  EXPECT_EQ(info->capacity_bytes, 3'840'000'000'000ULL);
  EXPECT_EQ(info->controller.wctemp_k, 351);
  EXPECT_EQ(info->controller.cctemp_k, 358);
  EXPECT_TRUE(handles[0].device->read_ocp()->has_value());
  EXPECT_FALSE(handles[1].device->read_ocp()->has_value());
  EXPECT_EQ(handles[0].device->read_temperature_thresholds()->over_k[0], 351);
}

// The datacenter profile shows its throttle points through host controlled
// thermal management (70 and 75 °C as TMT1 and TMT2); the consumer one
// does not support it and shows its point only by throttling.
TEST(SimSource, ThrottlePointsAreTmt1AndTmt2WhereTheProfileSupportsHctm) {
  ManualClock clock;
  SimDeviceSource source(two_drives(), clock);
  auto handles = source.scan();
  EXPECT_EQ(handles[0].device->identify()->controller.hctma & kHctmaSupported, kHctmaSupported);
  const auto dc = handles[0].device->read_host_thermal_management();
  ASSERT_TRUE(dc.ok());
  EXPECT_EQ(*dc, (HostThermalManagement{.tmt1_k = 343, .tmt2_k = 348}));
  EXPECT_EQ(handles[1].device->identify()->controller.hctma, 0);
  const auto consumer = handles[1].device->read_host_thermal_management();
  ASSERT_TRUE(consumer.ok());
  EXPECT_FALSE(consumer->has_value());
}

TEST(SimSource, EveryCallAdvancesTheModelToTheClock) {
  ManualClock clock;
  SimDeviceSource source(two_drives(), clock);
  auto handles = source.scan();
  clock.advance(2h + 30min);
  EXPECT_EQ(handles[0].device->read_smart()->power_on_hours, 2u);
  EXPECT_EQ(source.model("SNDC0")->now(), clock.wall());
}

TEST(SimSource, DuplicateSerialIsAConfigError) {
  ManualClock clock;
  auto specs = two_drives();
  specs[1].serial = specs[0].serial;
  EXPECT_THROW(SimDeviceSource(specs, clock), ConfigError);
}

TEST(SimSource, StateDirectorySurvivesARestart) {
  TempDir dir;
  ManualClock clock;
  u128 written = 0;
  {
    SimDeviceSource first(two_drives(), clock, dir.path());
    clock.advance(3h);
    first.model("SNC0")->advance_to(clock.wall());
    first.model("SNC0")->io(IoOp::write, 7'000'000'000, true);
    written = first.scan()[1].device->read_smart()->data_units_written;
    EXPECT_TRUE(first.save_all().empty());
  }
  EXPECT_TRUE(fs::exists(SimDeviceSource::state_file(dir.path(), "SNC0")));
  clock.advance(2h);
  SimDeviceSource second(two_drives(), clock, dir.path());
  auto smart = second.scan()[1].device->read_smart();
  ASSERT_TRUE(smart.ok());
  EXPECT_EQ(smart->data_units_written, written);
  EXPECT_EQ(smart->power_on_hours, 5u);  // 3 h before, 2 h while "down"
}

TEST(SimSource, ClockBehindTheSavedStateRebasesTime) {
  TempDir dir;
  ManualClock clock;
  {
    SimDeviceSource first(two_drives(), clock, dir.path());
    clock.advance(10h);
    first.scan()[0].device->read_smart();
    first.save_all();
  }
  clock.advance(-9h);  // an accelerated demo restarted from real time
  SimDeviceSource second(two_drives(), clock, dir.path());
  auto device = std::move(second.scan()[0].device);
  EXPECT_EQ(device->read_smart()->power_on_hours, 10u);
  clock.advance(1h);
  EXPECT_EQ(device->read_smart()->power_on_hours, 11u);
}

TEST(SimSource, AStateFileOfAnOlderDaemonIsRestoredThenReplacedByTheSlotFile) {
  TempDir dir;
  ManualClock clock;
  DriveModel older(test::named("consumer", "c0", "SNC0"), clock.wall());
  older.io(IoOp::write, 9'000'000'000, true);
  const auto legacy = SimDeviceSource::legacy_state_file(dir.path(), "SNC0");
  ASSERT_FALSE(save_state_file(older, legacy.string()).has_value());
  SimDeviceSource source(two_drives(), clock, dir.path());
  EXPECT_EQ(source.scan()[1].device->read_smart()->data_units_written, older.smart().data_units_written);
  ASSERT_FALSE(source.save("SNC0").has_value());
  EXPECT_TRUE(fs::exists(SimDeviceSource::state_file(dir.path(), "SNC0")));
  EXPECT_FALSE(fs::exists(legacy));  // a stale copy would only mislead a later restore
}

TEST(SimSource, ARestartReadsTheNewestSaveOfTheSlotFile) {
  TempDir dir;
  ManualClock clock;
  u128 written = 0;
  {
    SimDeviceSource first(two_drives(), clock, dir.path());
    for (int i = 0; i < 5; ++i) {
      first.model("SNC0")->io(IoOp::write, 1'000'000'000, true);
      ASSERT_FALSE(first.save("SNC0").has_value());
    }
    written = first.scan()[1].device->read_smart()->data_units_written;
  }
  SimDeviceSource second(two_drives(), clock, dir.path());
  EXPECT_EQ(second.scan()[1].device->read_smart()->data_units_written, written);
  // The other drive was never saved: it starts fresh.
  EXPECT_EQ(second.scan()[0].device->read_smart()->data_units_written, 0u);
}

TEST(SimSource, CorruptStateFileStartsFresh) {
  TempDir dir;
  ManualClock clock;
  std::ofstream(SimDeviceSource::state_file(dir.path(), "SNDC0")) << "{ not json";
  SimDeviceSource source(two_drives(), clock, dir.path());
  EXPECT_EQ(source.scan()[0].device->read_smart()->data_units_written, 0u);
}

// The files of a directory whose names start with `prefix`.
std::vector<fs::path> starting_with(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with(prefix)) out.push_back(e.path());
  }
  return out;
}

// A state file cut short (a truncate, a full disk under an older writer) is
// kept aside byte for byte, counted, and the drive starts fresh; the other
// drive's state is restored as usual.
TEST(SimSource, ATruncatedStateFileIsSetAsideCountedAndTheDriveStartsFresh) {
  TempDir dir;
  ManualClock clock;
  {
    SimDeviceSource first(two_drives(), clock, dir.path());
    first.model("SNC0")->io(IoOp::write, 1'000'000'000, true);
    first.model("SNDC0")->io(IoOp::write, 1'000'000'000, true);
    ASSERT_TRUE(first.save_all().empty());
  }
  const auto state = SimDeviceSource::state_file(dir.path(), "SNDC0");
  fs::resize_file(state, 5000);
  SimDeviceSource second(two_drives(), clock, dir.path());
  EXPECT_EQ(second.state_files_set_aside(), 1u);
  EXPECT_EQ(second.scan()[0].device->read_smart()->data_units_written, 0u);
  EXPECT_GT(second.scan()[1].device->read_smart()->data_units_written, 0u);
  const auto aside = starting_with(dir.path(), "sim-SNDC0.state.aside-");
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(fs::file_size(aside[0]), 5000u);
  EXPECT_FALSE(fs::exists(state));
  ASSERT_FALSE(second.save("SNDC0"));
  EXPECT_TRUE(fs::exists(state));
}

// A state file planted as a hard link to a valid state file elsewhere: not
// loaded, set aside (the link's name moves; the file elsewhere keeps its
// bytes), and the saves go to a file of the daemon's own.
TEST(SimSource, AStateFilePlantedAsAHardLinkIsSetAsideAndNeverWrittenThrough) {
  TempDir dir;
  TempDir outside;
  ManualClock clock;
  {
    SimDeviceSource other(two_drives(), clock, outside.path());
    other.model("SNC0")->io(IoOp::write, 5'000'000'000, true);
    ASSERT_FALSE(other.save("SNC0"));
  }
  const auto elsewhere = SimDeviceSource::state_file(outside.path(), "SNC0");
  const auto bytes_before = [&] {
    std::ifstream in(elsewhere, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  fs::create_hard_link(elsewhere, SimDeviceSource::state_file(dir.path(), "SNC0"));
  SimDeviceSource source(two_drives(), clock, dir.path());
  EXPECT_EQ(source.state_files_set_aside(), 1u);
  EXPECT_EQ(source.scan()[1].device->read_smart()->data_units_written, 0u) << "the planted state was loaded";
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(source.save("SNC0"));
  std::ifstream in(elsewhere, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), bytes_before);
  EXPECT_EQ(fs::hard_link_count(SimDeviceSource::state_file(dir.path(), "SNC0")), 1u);
}

// A truncation while the daemon runs: the next save rebuilds the file from
// the drive's state in memory, counts it, and a restart continues the drive.
TEST(SimSource, AStateFileTruncatedWhileRunningIsRebuiltByTheNextSaveAndCounted) {
  TempDir dir;
  ManualClock clock;
  u128 written = 0;
  {
    SimDeviceSource source(two_drives(), clock, dir.path());
    source.model("SNC0")->io(IoOp::write, 1'000'000'000, true);
    ASSERT_FALSE(source.save("SNC0"));
    fs::resize_file(SimDeviceSource::state_file(dir.path(), "SNC0"), 0);
    source.model("SNC0")->io(IoOp::write, 1'000'000'000, true);
    ASSERT_FALSE(source.save("SNC0"));
    EXPECT_EQ(source.state_files_set_aside(), 1u);
    written = source.scan()[1].device->read_smart()->data_units_written;
  }
  SimDeviceSource again(two_drives(), clock, dir.path());
  EXPECT_EQ(again.state_files_set_aside(), 0u);
  EXPECT_EQ(again.scan()[1].device->read_smart()->data_units_written, written);
}

// two_drives() with `fault` injected into dc0; c0 stays healthy.
std::vector<SimDriveSpec> faulty_dc0(SimFault fault) {
  auto specs = two_drives();
  specs[0].fault = fault;
  return specs;
}

// Starts `call` on another thread and returns once it is parked inside the
// hung drive `model`. The bound only stops a broken build from spinning
// forever; the assertions follow it.
template <typename Call>
auto start_parked(const DriveModel& model, Call call) {
  auto pending = std::async(std::launch::async, std::move(call));
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  while (model.hung_calls() == 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  return pending;
}

TEST(SimFaults, FailReturnsAnIoErrorWithContext) {
  ManualClock clock;
  SimDeviceSource source(faulty_dc0(SimFault::fail), clock);
  auto handles = source.scan();
  auto smart = handles[0].device->read_smart();
  ASSERT_FALSE(smart.ok());
  EXPECT_EQ(smart.error().reason, ErrorReason::io);
  EXPECT_EQ(smart.error().message, "sim:dc0: get-log SMART: injected failure");
  EXPECT_FALSE(handles[0].device->identify().ok());
  EXPECT_FALSE(handles[0].device->read_ocp().ok());
  EXPECT_FALSE(handles[0].device->read_temperature_thresholds().ok());
  EXPECT_TRUE(handles[1].device->read_smart().ok());  // only its own drive
  source.model("SNDC0")->set_fault(SimFault::none);
  EXPECT_TRUE(handles[0].device->read_smart().ok());
}

TEST(SimSource, AFormatOfTheDrivesNamespaceIsDoneAndOfAnyOtherRefusedByName) {
  ManualClock clock;
  SimDeviceSource source(two_drives(), clock);
  auto handles = source.scan();
  EXPECT_FALSE(handles[0].device->format_user_data_erase(1).has_value());
  const auto refused = handles[0].device->format_user_data_erase(2);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->message, "sim:dc0: format NVM namespace 2, user data erase: no such namespace");
  source.model("SNDC0")->set_fault(SimFault::fail);
  const auto failed = handles[0].device->format_user_data_erase(1);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->message, "sim:dc0: format NVM namespace 1, user data erase: injected failure");
}

TEST(SimFaults, MediaErrorsFillTheErrorLogWithMediaEntries) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  spec.media_error_interval = 10min;
  auto model = std::make_shared<DriveModel>(spec, clock.wall());
  SimDevice dev(model, clock);
  EXPECT_EQ(dev.read_smart()->error_log_entries, 0u);
  EXPECT_TRUE(dev.read_error_log()->empty());
  clock.advance(35min);
  const SmartLog s = *dev.read_smart();
  EXPECT_EQ(s.media_errors, 3u);
  EXPECT_EQ(s.error_log_entries, 3u);
  const auto log = *dev.read_error_log();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log.front().error_count, 3u);  // newest first, as a drive keeps it
  EXPECT_EQ(log.back().error_count, 1u);
  for (const auto& e : log) {
    EXPECT_EQ(e.status_code_type(), 2);  // media and data integrity
    EXPECT_EQ(e.status_code(), 0x81);    // unrecovered read error
    EXPECT_EQ(e.nsid, 1u);
    EXPECT_LT(e.lba, spec.capacity_bytes / 512);
  }
  // The log keeps what Identify says it keeps, however many errors there were.
  clock.advance(24h);
  EXPECT_EQ(dev.read_error_log()->size(), kSimErrorLogEntries);
  EXPECT_EQ(dev.identify()->controller.elpe + 1u, kSimErrorLogEntries);
}

TEST(SimFaults, DegradedLinkTrainsAtHalfWidth) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  auto healthy = SimDevice(std::make_shared<DriveModel>(spec, clock.wall()), clock).read_pcie_link();
  ASSERT_TRUE(healthy.ok() && healthy->has_value());
  EXPECT_FALSE((*healthy)->degraded());
  spec.degraded_link = true;
  auto degraded = SimDevice(std::make_shared<DriveModel>(spec, clock.wall()), clock).read_pcie_link();
  EXPECT_EQ((*degraded)->current_width, 2u);
  EXPECT_EQ((*degraded)->max_width, 4u);
  EXPECT_TRUE((*degraded)->degraded());
}

TEST(SimSelfTest, AHistoryOfAPassedShortTestFromWhenTheDriveStarted) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  SimDevice dev(std::make_shared<DriveModel>(spec, clock.wall()), clock);
  EXPECT_NE(dev.identify()->controller.oacs & kOacsDeviceSelfTest, 0u);
  const auto started_hours = static_cast<std::uint64_t>(dev.read_smart()->power_on_hours);
  clock.advance(std::chrono::hours(5));
  const auto log = dev.read_self_test_log();
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_FALSE(log->running());
  ASSERT_EQ(log->results.size(), 1u);
  EXPECT_EQ(log->results[0].code(), 1);    // short
  EXPECT_EQ(log->results[0].result(), 0);  // passed
  EXPECT_EQ(log->results[0].power_on_hours, started_hours);
  EXPECT_LT(log->results[0].power_on_hours, static_cast<std::uint64_t>(dev.read_smart()->power_on_hours));
}

TEST(SimSelfTest, AShortTestProgressesWithTheClockAndPassesAfterTwoMinutes) {
  ManualClock clock;
  SimDevice dev(std::make_shared<DriveModel>(test::named("generic"), clock.wall()), clock);
  ASSERT_EQ(dev.start_self_test(SelfTestKind::short_test), std::nullopt);
  clock.advance(30s);
  auto log = dev.read_self_test_log();
  EXPECT_EQ(log->current_operation, 1);
  EXPECT_EQ(log->completion_pct, 25);
  EXPECT_EQ(log->results.size(), 1u) << "no result while it runs";
  clock.advance(90s);
  log = dev.read_self_test_log();
  EXPECT_FALSE(log->running());
  EXPECT_EQ(log->completion_pct, 0);
  ASSERT_EQ(log->results.size(), 2u);
  EXPECT_EQ(log->results[0].status, 0x10) << "short, passed, newest first";
}

TEST(SimSelfTest, AnExtendedTestTakesTheTimeToReadTheCapacity) {
  ManualClock clock;
  SimDriveSpec small = test::named("generic");
  small.capacity_bytes = 100'000'000'000ULL;  // 100 s of reading: the 10 minute floor
  SimDriveSpec big = small;
  big.capacity_bytes = 7'680'000'000'000ULL;  // 7680 s = 128 minutes
  EXPECT_EQ(DriveModel(small, clock.wall()).extended_self_test_duration(), 10min);
  EXPECT_EQ(DriveModel(big, clock.wall()).extended_self_test_duration(), 128min);

  SimDevice dev(std::make_shared<DriveModel>(big, clock.wall()), clock);
  ASSERT_EQ(dev.start_self_test(SelfTestKind::extended_test), std::nullopt);
  clock.advance(127min);
  EXPECT_EQ(dev.read_self_test_log()->current_operation, 2);
  EXPECT_EQ(dev.read_self_test_log()->completion_pct, 99);
  clock.advance(1min);
  const auto log = dev.read_self_test_log();
  EXPECT_FALSE(log->running());
  EXPECT_EQ(log->results[0].status, 0x20);
  EXPECT_EQ(log->results[0].power_on_hours, 2u) << "power-on hours when it completed";
}

TEST(SimSelfTest, ASecondStartWhileOneRunsIsRefusedAsInProgress) {
  ManualClock clock;
  SimDevice dev(std::make_shared<DriveModel>(test::named("generic"), clock.wall()), clock);
  ASSERT_EQ(dev.start_self_test(SelfTestKind::extended_test), std::nullopt);
  clock.advance(1min);
  const auto refused = dev.start_self_test(SelfTestKind::short_test);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason, ErrorReason::busy);
  EXPECT_NE(refused->message.find("sim:"), std::string::npos) << refused->message;
  EXPECT_NE(refused->message.find("Device Self-test in Progress"), std::string::npos) << refused->message;
  EXPECT_EQ(dev.read_self_test_log()->current_operation, 2) << "the running test goes on";
}

TEST(SimSelfTest, AnAbortEndsTheRunningTestAsAbortedByCommand) {
  ManualClock clock;
  SimDevice dev(std::make_shared<DriveModel>(test::named("generic"), clock.wall()), clock);
  EXPECT_EQ(dev.abort_self_test(), std::nullopt) << "nothing running: nothing to abort, no error";
  EXPECT_EQ(dev.read_self_test_log()->results.size(), 1u);
  ASSERT_EQ(dev.start_self_test(SelfTestKind::extended_test), std::nullopt);
  clock.advance(3min);
  ASSERT_EQ(dev.abort_self_test(), std::nullopt);
  const auto log = dev.read_self_test_log();
  EXPECT_FALSE(log->running());
  ASSERT_EQ(log->results.size(), 2u);
  EXPECT_EQ(log->results[0].code(), 2);
  EXPECT_EQ(log->results[0].result(), 1);  // aborted by a Device Self-test command
  EXPECT_EQ(dev.start_self_test(SelfTestKind::short_test), std::nullopt) << "a new test may start";
}

TEST(SimSelfTest, OnAFailingDriveEveryRunFailsInASegment) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  spec.self_test_failure = true;
  SimDevice dev(std::make_shared<DriveModel>(spec, clock.wall()), clock);
  ASSERT_EQ(dev.start_self_test(SelfTestKind::short_test), std::nullopt);
  clock.advance(kSimShortSelfTest);
  auto log = dev.read_self_test_log();
  ASSERT_EQ(log->results.size(), 3u);
  EXPECT_EQ(log->results[0].status, 0x17);  // short, failed segments
  EXPECT_EQ(log->results[0].segment, 2);
  ASSERT_EQ(dev.start_self_test(SelfTestKind::extended_test), std::nullopt);
  clock.advance(2h);
  log = dev.read_self_test_log();
  EXPECT_EQ(log->results[0].status, 0x27);  // extended, failed segments
  EXPECT_EQ(log->results[0].segment, 5);
  EXPECT_EQ(log->results[1].status, 0x17);
}

TEST(SimSelfTest, AnInjectedFailureRefusesTheCommand) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  spec.fault = SimFault::fail;
  SimDevice dev(std::make_shared<DriveModel>(spec, clock.wall()), clock);
  const auto refused = dev.start_self_test(SelfTestKind::short_test);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason, ErrorReason::io);
  EXPECT_NE(refused->message.find("device self-test, short"), std::string::npos) << refused->message;
}

TEST(SimSelfTest, AFailureIsANewerFailedExtendedTestInSegmentFive) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  spec.self_test_failure = true;
  SimDevice dev(std::make_shared<DriveModel>(spec, clock.wall()), clock);
  const auto log = dev.read_self_test_log();
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->results.size(), 2u);
  EXPECT_EQ(log->results[0].code(), 2);    // extended
  EXPECT_EQ(log->results[0].result(), 7);  // failed segments
  EXPECT_EQ(log->results[0].segment, 5);
  EXPECT_EQ(log->results[1].result(), 0);
}

TEST(SimFaults, HangBlocksTheCallerUntilTheFaultClears) {
  ManualClock clock;
  auto specs = faulty_dc0(SimFault::hang);
  specs[0].hang = 1h;
  SimDeviceSource source(specs, clock);
  auto model = source.model("SNDC0");
  auto handles = source.scan();
  auto pending = start_parked(*model, [&] { return handles[0].device->read_smart(); });
  ASSERT_EQ(model->hung_calls(), 1);
  EXPECT_EQ(pending.wait_for(0s), std::future_status::timeout);
  EXPECT_TRUE(handles[1].device->read_smart().ok());  // other drives answer meanwhile
  model->set_fault(SimFault::none);
  auto smart = pending.get();
  EXPECT_TRUE(smart.ok());
  EXPECT_EQ(model->hung_calls(), 0);
}

TEST(SimFaults, HangThatTurnsIntoFailureReturnsTheError) {
  ManualClock clock;
  SimDeviceSource source(faulty_dc0(SimFault::hang), clock);
  auto model = source.model("SNDC0");
  auto handles = source.scan();
  auto pending = start_parked(*model, [&] { return handles[0].device->identify(); });
  ASSERT_EQ(model->hung_calls(), 1);
  model->set_fault(SimFault::fail);
  auto info = pending.get();
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().message, "sim:dc0: identify: injected failure");
}

TEST(SimFaults, ReleasedHangsNeverBlockAgain) {
  ManualClock clock;
  SimDeviceSource source(faulty_dc0(SimFault::hang), clock);
  source.model("SNDC0")->release_hangs();
  EXPECT_TRUE(source.scan()[0].device->read_smart().ok());  // would block an hour otherwise
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
