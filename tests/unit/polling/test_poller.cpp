// A poller destroyed while its device is in a command (a reload, a SIGTERM)
// abandons the thread; when the command returns the thread must exit without
// running the observer, which touches state its Fleet has already freed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <vector>

#include "polling/poller.hpp"
#include "tests/support/fake_controller.hpp"
#include "tests/support/one_poll.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

class BlockingDevice final : public Device {
 public:
  BlockingDevice(std::promise<void>& entered, std::shared_future<void> release, std::promise<void>& destroyed)
      : entered_(entered), release_(std::move(release)), destroyed_(destroyed) {}
  ~BlockingDevice() override { destroyed_.set_value(); }
  Result<DriveInfo> identify() override {
    DriveInfo d;
    d.serial = "SN-BLOCK";
    d.path = "fake:0";
    return d;
  }
  Result<SmartLog> read_smart() override {
    entered_.set_value();
    release_.wait();
    return SmartLog{};
  }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake: format NVM: not faked"};
  }

 private:
  std::promise<void>& entered_;
  std::shared_future<void> release_;
  std::promise<void>& destroyed_;
};

TEST(DevicePoller, AbandonedThreadNeverRunsTheObserver) {
  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock clock;
  std::promise<void> entered, release, destroyed;
  std::atomic<int> observer_calls{0};
  const int abandoned_before = DevicePoller::abandoned_threads();

  auto poller = std::make_unique<DevicePoller>(
      io, "fake:0", std::make_unique<BlockingDevice>(entered, release.get_future().share(), destroyed),
      PollSettings{1h, 1h}, clock, out, [&](const DriveInfo&, const HealthSnapshot&) {
        ++observer_calls;
        return PollObservation{};
      });
  poller->start();
  io.run_one();  // the first tick hands the poll to the device's thread
  ASSERT_EQ(entered.get_future().wait_for(10s), std::future_status::ready);

  poller.reset();  // while read_smart() is blocked
  EXPECT_EQ(DevicePoller::abandoned_threads(), abandoned_before + 1);
  release.set_value();
  // The thread drops the last reference to the device when it exits.
  ASSERT_EQ(destroyed.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(observer_calls.load(), 0);
}

// Answers identify with `serial` (an error when nullopt), SMART with zeros.
class ScriptedDevice final : public Device {
 public:
  ScriptedDevice(std::optional<std::string> serial, std::atomic<int>& calls)
      : serial_(std::move(serial)), calls_(calls) {}
  Result<DriveInfo> identify() override {
    ++calls_;
    if (!serial_) return Error{ErrorReason::io, "fake:noid: identify: injected failure"};
    DriveInfo d;
    d.serial = *serial_;
    d.model = "Fake";
    d.path = "fake:noid";
    return d;
  }
  Result<SmartLog> read_smart() override { return SmartLog{}; }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake: format NVM: not faked"};
  }

 private:
  std::optional<std::string> serial_;
  std::atomic<int>& calls_;
};

std::size_t threads_now() {
  return static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator("/proc/self/task"), std::filesystem::directory_iterator{}));
}

// name -> label sets, of everything published.
std::multimap<std::string, std::map<std::string, std::string>> series(const PublishedMetrics& out) {
  std::multimap<std::string, std::map<std::string, std::string>> s;
  for (const auto& f : out.Collect()) {
    for (const auto& m : f.metric) {
      std::map<std::string, std::string> labels;
      for (const auto& l : m.label) labels[l.name] = l.value;
      s.emplace(f.name, labels);
    }
  }
  return s;
}

TEST(DevicePoller, APollerForAPathWithAStuckThreadWaitsForItInsteadOfStartingAnother) {
  boost::asio::io_context io;
  PublishedMetrics out;
  ManualClock clock;  // ticks come when the test advances it
  std::promise<void> entered, release, destroyed;
  auto first = std::make_unique<DevicePoller>(
      io, "fake:stuck", std::make_unique<BlockingDevice>(entered, release.get_future().share(), destroyed),
      PollSettings{1h, 1h}, clock, out, nullptr);
  first->start();
  io.run_one();
  ASSERT_EQ(entered.get_future().wait_for(10s), std::future_status::ready);
  first.reset();  // a reload while the device is in a command

  std::atomic<int> calls{0};
  const std::size_t threads_before = threads_now();
  DevicePoller second(io, "fake:stuck", std::make_unique<ScriptedDevice>("SN-AGAIN", calls), PollSettings{1h, 1h},
                      clock, out, nullptr);
  second.start();
  for (int i = 0; i < 3; ++i) {  // three ticks
    io.poll();
    clock.advance(1h);
  }
  io.poll();
  EXPECT_EQ(threads_now(), threads_before) << "a second thread on a device known to hang";
  EXPECT_EQ(calls.load(), 0);
  EXPECT_FALSE(second.up());
  EXPECT_EQ(second.last_error_reason(), ErrorReason::timeout);

  release.set_value();  // the stuck command returns; its thread exits
  ASSERT_EQ(destroyed.get_future().wait_for(10s), std::future_status::ready);
  clock.advance(1h);  // the next tick
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (calls.load() == 0 && std::chrono::steady_clock::now() < give_up) io.run_one();
  EXPECT_GE(calls.load(), 1) << "polling resumes once the stuck thread is gone";
}

TEST(DevicePoller, ADriveThatNeverIdentifiedIsReportedByItsPathOnly) {
  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock clock;
  std::atomic<int> calls{0};
  DevicePoller poller(io, "fake:noid", std::make_unique<ScriptedDevice>(std::nullopt, calls), PollSettings{1h, 1h},
                      clock, out, nullptr);
  poller.start();
  io.run_one();  // the tick
  io.run_one();  // the outcome
  ASSERT_EQ(calls.load(), 1);
  const std::map<std::string, std::string> by_path{{"path", "fake:noid"}};
  const std::multimap<std::string, std::map<std::string, std::string>> want{{"nvme_device_info", by_path},
                                                                            {"nvme_up", by_path}};
  EXPECT_EQ(series(out), want);
}

TEST(DevicePoller, ADriveWithAnEmptySerialIsReportedByItsPathAndGetsNoHistory) {
  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock clock;
  std::atomic<int> calls{0};
  std::atomic<int> observed{0};
  DevicePoller poller(io, "fake:noid", std::make_unique<ScriptedDevice>("", calls), PollSettings{1h, 1h}, clock, out,
                      [&](const DriveInfo&, const HealthSnapshot&) {
                        ++observed;
                        return PollObservation{};
                      });
  poller.start();
  io.run_one();
  io.run_one();
  EXPECT_TRUE(poller.up());
  EXPECT_EQ(observed.load(), 0);
  auto s = series(out);
  EXPECT_EQ(s.size(), 2u);
  for (const auto& [name, labels] : s)
    EXPECT_EQ(labels, (std::map<std::string, std::string>{{"path", "fake:noid"}})) << name;
}

// The worker reads log 01h only once the observer has said which error count
// the history has accounted for, and only while SMART's count differs from it.
TEST(DevicePoller, ReadsTheErrorLogOnlyWhenSmartsCountLeavesWhatTheHistoryHasSeen) {
  boost::asio::io_context io;
  PublishedMetrics out;
  ManualClock clock;
  auto script = std::make_shared<test::ControllerScript>();
  script->identity.serial = "SN-ERR";
  std::mutex mu;
  std::vector<bool> read_log;  // per poll: whether the snapshot carried the log
  std::uint64_t seen = 0;
  std::atomic<int> polls{0};
  DevicePoller poller(io, "fake:err", std::make_unique<test::FakeController>(script), PollSettings{1h, 1h}, clock, out,
                      [&](const DriveInfo&, const HealthSnapshot& snap) {
                        std::lock_guard lock(mu);
                        read_log.push_back(snap.error_log.has_value());
                        if (snap.error_log) seen = static_cast<std::uint64_t>(snap.smart.error_log_entries);
                        PollObservation o;
                        o.error_log_seen = seen;
                        ++polls;
                        return o;
                      });
  poller.start();
  auto poll = [&] {
    test::run_one_poll(io, polls);
    clock.advance(1h);
  };
  script->smart.error_log_entries = 2;
  script->error_log = {ErrorLogEntry{.error_count = 2}, ErrorLogEntry{.error_count = 1}};
  poll();  // the observer has not spoken yet: no read
  poll();  // 2 errors, history has seen 0: read
  poll();  // nothing new
  script->smart.error_log_entries = 3;
  poll();  // read again
  poll();
  std::lock_guard lock(mu);
  EXPECT_EQ(read_log, (std::vector<bool>{false, true, false, true, false}));
  EXPECT_EQ(script->error_log_reads, 2);
}

TEST(DevicePoller, ADriveWithoutSelfTestsIsAskedOnceAndOneWithThemEveryPoll) {
  for (const bool supported : {false, true}) {
    boost::asio::io_context io;
    PublishedMetrics out;
    ManualClock clock;
    auto script = std::make_shared<test::ControllerScript>();
    script->identity.serial = "SN-ST";
    if (supported) script->self_test = SelfTestLog{.current_operation = 2, .completion_pct = 10, .results = {}};
    std::mutex mu;
    std::vector<bool> carried;  // per poll: whether the snapshot carried the log
    std::atomic<int> polls{0};
    DevicePoller poller(io, "fake:st", std::make_unique<test::FakeController>(script), PollSettings{1h, 1h}, clock, out,
                        [&](const DriveInfo&, const HealthSnapshot& snap) {
                          std::lock_guard lock(mu);
                          carried.push_back(snap.self_test.has_value());
                          ++polls;
                          return PollObservation{};
                        });
    poller.start();
    for (int i = 0; i < 3; ++i) {
      test::run_one_poll(io, polls);
      clock.advance(1h);
    }
    std::lock_guard lock(mu);
    EXPECT_EQ(carried, std::vector<bool>(3, supported)) << supported;
    EXPECT_EQ(script->self_test_reads, supported ? 3 : 1) << supported;
  }
}

TEST(DevicePoller, TheEventLogIsReadAtStartHourlyOrWhenTheDriveRanHotAndNeverWhenAbsent) {
  for (const bool supported : {false, true}) {
    boost::asio::io_context io;
    PublishedMetrics out;
    ManualClock clock;
    auto script = std::make_shared<test::ControllerScript>();
    script->identity.serial = "SN-PEL";
    if (supported) script->event_log = PersistentEventLog{};
    std::mutex mu;
    std::vector<bool> carried;  // per poll: whether the snapshot carried the log
    std::atomic<int> polls{0};
    DevicePoller poller(io, "fake:pel", std::make_unique<test::FakeController>(script), PollSettings{10min, 1h}, clock,
                        out, [&](const DriveInfo&, const HealthSnapshot& snap) {
                          std::lock_guard lock(mu);
                          carried.push_back(snap.event_log != nullptr);
                          ++polls;
                          return PollObservation{};
                        });
    poller.start();
    // Polls at 0, 10, 20 (after time over WCTEMP), 30, 40 and 80 minutes.
    for (const auto step : {10min, 10min, 10min, 10min, 40min, 0min}) {
      test::run_one_poll(io, polls);
      if (polls.load() == 2) script->smart.thermal.warning_minutes = 1;
      clock.advance(step);
    }
    std::lock_guard lock(mu);
    if (supported) {
      EXPECT_EQ(carried, (std::vector<bool>{true, false, true, false, false, true}));
    } else {
      EXPECT_EQ(carried, std::vector<bool>(6, false));
    }
    EXPECT_EQ(script->event_log_reads, supported ? 3 : 1) << supported;
  }
}

TEST(DevicePoller, ARecoveredDriveKeepsItsEventLogScheduleAndAnotherDriveIsReadAtOnce) {
  boost::asio::io_context io;
  PublishedMetrics out;
  ManualClock clock;
  auto script = std::make_shared<test::ControllerScript>();
  script->identity.serial = "SN-PEL1";
  script->event_log = PersistentEventLog{};
  std::atomic<int> good{0};  // polls that reached the observer
  DevicePoller poller(io, "fake:pel", std::make_unique<test::FakeController>(script), PollSettings{10min, 1h}, clock,
                      out, [&](const DriveInfo&, const HealthSnapshot&) {
                        ++good;
                        return PollObservation{};
                      });
  poller.start();
  const Error timed_out{ErrorReason::timeout, "fake:nvme7: get-log smart (02h): timed out"};
  // One poll; `fails` says which outcome to wait for: a failed poll reaches
  // no observer, but its outcome marks the drive down. Returns the event
  // log reads it made.
  auto poll = [&](bool fails) {
    const int good_before = good.load();
    const int reads_before = script->event_log_reads;
    script->smart_error = fails ? std::optional<Error>(timed_out) : std::nullopt;
    auto done = [&] {
      if (!fails) return good.load() > good_before;
      const auto drives = out.drives();
      return !drives.empty() && !drives.front().up;
    };
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    io.poll();
    while (!done() && std::chrono::steady_clock::now() < give_up) io.run_one_for(10ms);
    io.run_one_for(1s);  // the outcome, so the next tick is not skipped as in flight
    clock.advance(10min);
    return script->event_log_reads - reads_before;
  };
  EXPECT_EQ(poll(false), 1);  // start-up
  EXPECT_EQ(poll(true), 0);   // the next poll identifies again
  EXPECT_EQ(poll(false), 0);  // the same drive, recovered: its schedule holds
  EXPECT_EQ(poll(true), 0);
  script->identity.serial = "SN-PEL2";  // swapped while it failed
  EXPECT_EQ(poll(false), 1);
}

// Polls a FakeController at a 10 s interval on a ManualClock, one poll at a
// time: poll() returns once the poll's outcome is handled.
struct PacedPolls {
  boost::asio::io_context io;
  PublishedMetrics out;
  ManualClock clock;
  std::shared_ptr<test::ControllerScript> script = std::make_shared<test::ControllerScript>();
  std::unique_ptr<DevicePoller> poller;
  std::optional<std::uint64_t> media_path_errors;  // what the observer's history says

  void start() {
    poller = std::make_unique<DevicePoller>(io, "fake:paced", std::make_unique<test::FakeController>(script),
                                            PollSettings{10s, 1h}, clock, out,
                                            [this](const DriveInfo&, const HealthSnapshot&) {
                                              PollObservation o;
                                              o.error_log_seen = 0;  // a history that has seen no error
                                              o.media_path_errors = media_path_errors;
                                              return o;
                                            });
    poller->start();
  }
  double collections() const {
    for (const auto& f : out.Collect()) {
      if (f.name == "nvmond_collections_total" && !f.metric.empty()) return f.metric[0].counter.value;
    }
    return 0;
  }
  // Sends a self-test command and runs the loop until its answer is back.
  std::optional<Error> self_test(std::optional<SelfTestKind> kind) {
    std::optional<std::optional<Error>> answer;
    poller->self_test(kind, [&answer](std::optional<Error> e) { answer = std::move(e); });
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (!answer && std::chrono::steady_clock::now() < give_up) io.run_one_for(10ms);
    if (!answer) return Error{ErrorReason::timeout, "test: no answer within 10 s"};
    return *answer;
  }
  void poll() {
    const double before = collections();
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    io.poll();
    while (collections() == before && std::chrono::steady_clock::now() < give_up) io.run_one_for(10ms);
    clock.advance(10s);
  }
};

// nvmonctl status shows the media and path errors the drive's error log
// holds: history, so a failed poll keeps them where it drops the health.
TEST(DevicePoller, TheDrivesMediaAndPathErrorsReachItsSummaryAndOutliveAFailedPoll) {
  PacedPolls p;
  p.script->identity.serial = "SN-ERR";
  p.start();
  p.poll();
  ASSERT_EQ(p.out.drives().size(), 1u);
  EXPECT_FALSE(p.out.drives()[0].media_path_errors) << "unknown until the history says";
  p.media_path_errors = 2;
  p.poll();
  EXPECT_EQ(p.out.drives()[0].media_path_errors, std::optional<std::uint64_t>(2));
  p.script->smart_error = Error{ErrorReason::io, "fake:nvme7: get-log SMART (02h): I/O error"};
  p.poll();
  ASSERT_FALSE(p.out.drives()[0].up);
  EXPECT_FALSE(p.out.drives()[0].composite_c);
  EXPECT_EQ(p.out.drives()[0].media_path_errors, std::optional<std::uint64_t>(2));
}

TEST(DevicePoller, AnIdleDrivesSelfTestLogIsReadOncePerTenMinutesAndCarriedBetween) {
  PacedPolls p;
  p.script->identity.serial = "SN-IDLE";
  SelfTestResult passed;
  passed.status = 0x10;
  p.script->self_test = SelfTestLog{.current_operation = 0, .completion_pct = 0, .results = {passed}};
  p.start();
  for (int i = 0; i < 61; ++i) p.poll();  // 10 minutes of 10 s polls, and one more
  EXPECT_EQ(p.script->self_test_reads, 2) << "the first poll, then once 10 minutes later";
  bool carried = false;
  for (const auto& f : p.out.Collect()) carried |= f.name == "nvme_self_test_last_result";
  EXPECT_TRUE(carried) << "between reads the series keep the last log's values";
}

TEST(DevicePoller, ARunningSelfTestIsReadEveryPollUntilItEnds) {
  PacedPolls p;
  p.script->identity.serial = "SN-RUN";
  p.script->self_test = SelfTestLog{.current_operation = 1, .completion_pct = 10, .results = {}};
  p.start();
  p.poll();
  p.poll();
  p.poll();
  EXPECT_EQ(p.script->self_test_reads, 3);
  p.script->self_test->current_operation = 0;
  p.poll();  // reads, and sees it ended
  p.poll();
  p.poll();
  EXPECT_EQ(p.script->self_test_reads, 4);
}

TEST(DevicePoller, AnotherDriveAtThePathIsAskedForTheLogsTheLastOneLacked) {
  PacedPolls p;
  p.script->identity.serial = "SN-OLD";
  p.script->smart.error_log_entries = 1;  // so the error log is due
  p.script->error_log_supported = false;
  p.start();
  p.poll();
  p.poll();
  EXPECT_EQ(p.script->self_test_reads, 1);
  EXPECT_EQ(p.script->error_log_reads, 1);

  // The drive goes away (a failed poll) and another one answers at its path.
  p.script->smart_error = Error{ErrorReason::absent, "fake:nvme7: get-log SMART (02h): No such device"};
  p.poll();
  ASSERT_FALSE(p.poller->up());
  p.script->smart_error.reset();
  p.script->identity.serial = "SN-NEW";
  p.script->self_test = SelfTestLog{};
  p.script->error_log_supported = true;
  p.poll();
  EXPECT_TRUE(p.poller->up());
  EXPECT_EQ(p.script->self_test_reads, 2);
  EXPECT_EQ(p.script->error_log_reads, 2);
}

TEST(DevicePoller, ASelfTestCommandGoesToTheDeviceAndTheNextPollReadsTheLog) {
  PacedPolls p;
  p.script->identity.serial = "SN-CMD";
  p.script->self_test = SelfTestLog{};
  p.start();
  p.poll();
  p.poll();
  ASSERT_EQ(p.script->self_test_reads, 1);
  EXPECT_EQ(p.self_test(SelfTestKind::extended_test), std::nullopt);
  EXPECT_EQ(p.script->self_tests_started, std::vector<SelfTestKind>{SelfTestKind::extended_test});
  p.poll();
  EXPECT_EQ(p.script->self_test_reads, 2) << "read right after the start, not 10 minutes later";

  p.script->self_test_error = Error{ErrorReason::busy, "fake:nvme7: device self-test: Device Self-test in Progress"};
  const auto refused = p.self_test(std::nullopt);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason, ErrorReason::busy);
  EXPECT_EQ(p.script->self_test_aborts, 1);
}

TEST(DevicePoller, TheSameDriveAnsweringAgainIsNotAskedForLogsItLacks) {
  PacedPolls p;
  p.script->identity.serial = "SN-SAME";
  p.start();
  p.poll();
  p.script->smart_error = Error{ErrorReason::io, "fake:nvme7: get-log SMART (02h): injected"};
  p.poll();
  p.script->smart_error.reset();
  p.poll();
  EXPECT_EQ(p.script->self_test_reads, 1) << "said once, left alone";
}

// Two drives polled in the same tick through a gate of one slot: the second
// drive's observer (analytics, history, rendering) does not start while the
// first one's is running, and runs once it is done. A gate with a slot each
// runs both at once, so the test also fails if the poller ignored the gate.
TEST(DevicePoller, ObserversOfDrivesPolledTogetherTakeTurnsThroughTheCpuGate) {
  for (const std::ptrdiff_t slots : {1, 2}) {
    boost::asio::io_context io;
    PublishedMetrics out;
    ManualClock clock;
    CpuGate gate(slots);
    std::mutex mu;
    std::condition_variable cv;
    int inside = 0, most_inside = 0, done = 0;
    bool release = false;
    auto observer = [&](const DriveInfo&, const HealthSnapshot&) {
      std::unique_lock lock(mu);
      most_inside = std::max(most_inside, ++inside);
      cv.notify_all();
      // The first one in waits until both are in or the test lets it go.
      cv.wait(lock, [&] { return release || inside == 2; });
      --inside;
      ++done;
      cv.notify_all();
      return PollObservation{};
    };
    std::vector<std::unique_ptr<DevicePoller>> pollers;
    for (const char* serial : {"SN-G1", "SN-G2"}) {
      auto script = std::make_shared<test::ControllerScript>();
      script->identity.serial = serial;
      PollSettings settings{1h, 1h};
      settings.cpu_gate = &gate;
      pollers.push_back(std::make_unique<DevicePoller>(io, std::string("fake:") + serial,
                                                       std::make_unique<test::FakeController>(script), settings, clock,
                                                       out, observer));
      pollers.back()->start();
    }
    io.poll();  // both first ticks hand their polls to the device threads
    {
      std::unique_lock lock(mu);
      ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return inside >= 1; }));
      // Both in at once, or (gated) the second held at the gate while the
      // first waits: it stays out for as long as the first one runs.
      const bool both = cv.wait_for(lock, 2s, [&] { return inside == 2 || done > 0; });
      EXPECT_EQ(both, slots == 2) << slots << " slot(s)";
      release = true;
      cv.notify_all();
      ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return done == 2; }));
    }
    EXPECT_EQ(most_inside, static_cast<int>(slots)) << slots << " slot(s)";
    while (io.poll() > 0) {
    }
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
