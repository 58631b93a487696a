// The event loop never waits on a device: a soak start whose target does not
// answer (a drive hung in its identify) and a self-test command on a drive
// hung in the command each hold only their own request. The loop runs on its
// own thread, as in the daemon; while the target or the drive blocks (60 s
// unless the test releases it), a ManualClock timer armed on the loop still
// fires and other control requests are answered, and once released the
// request gets its answer.
#include <gtest/gtest.h>

#include <boost/asio/post.hpp>

#include <future>
#include <mutex>
#include <thread>

#include "daemon/control/control_commands.hpp"
#include "tests/support/control_json.hpp"
#include "polling/poller.hpp"
#include "soak/soak_runner.hpp"
#include "pts/targets/sim_target.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/loop_thread.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using nlohmann::json;

using test::LoopThread;

// Something that blocks for 60 s unless the test lets it go first.
struct Blocker {
  std::promise<void> entered_promise;
  std::shared_future<void> entered = entered_promise.get_future().share();
  std::promise<void> release_promise;
  std::shared_future<void> released = release_promise.get_future().share();
  std::once_flag once;
  void block() {
    std::call_once(once, [&] { entered_promise.set_value(); });
    released.wait_for(60s);
  }
  void release() { release_promise.set_value(); }
};

// A ManualClock timer armed on the loop fires once the clock moves.
bool a_timer_fires(LoopThread& loop, ManualClock& clock) {
  auto fired = std::make_shared<std::promise<void>>();
  std::unique_ptr<Timer> timer;
  if (!loop.on_loop([&] {
        timer = clock.timer(loop.io);
        timer->arm(1s, [fired] { fired->set_value(); });
        return true;
      })) {
    return false;
  }
  clock.advance(1s);
  const bool ok = fired->get_future().wait_for(2s) == std::future_status::ready;
  loop.on_loop([&] {
    timer.reset();
    return true;
  });
  return ok;
}

SimDriveSpec drive() {
  SimDriveSpec s = sim_profile("datacenter");
  s.name = "x";
  s.serial = "SN-LOOP";
  s.capacity_bytes = 100'000'000'000ULL;
  return s;
}

TEST(LoopNeverWaits, AStartWhoseTargetHangsAnswersAtOnceAndTheLoopGoesOn) {
  test::TempDir dir{"nvmond-loop-start"};
  auto store = std::shared_ptr<RunStore>(std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db")));
  auto model = std::make_shared<DriveModel>(drive(), WallTime{} + 480000h);
  ManualClock clock{WallTime{} + 480000h};
  Blocker identify;
  {
    LoopThread loop;
    DriveClaims claims;
    SoakRunner runner(
        store, dir.path(),
        [&](const std::string&) -> Result<OpenedTarget> {
          identify.block();  // the drive does not answer its identify
          return OpenedTarget{std::make_unique<SimTarget>(model), nullptr};
        },
        clock, nullptr, [&loop](std::function<void()> f) { boost::asio::post(loop.io, std::move(f)); }, &claims);
    SoakScheduler scheduler{runner, nullptr};
    ControlContext ctx{runner, scheduler, clock, [] { return std::vector<DriveSummary>{}; },
                       [&] { scheduler.tick(clock.wall(), nullptr); }};
    auto control = [&](json request) {
      return loop.on_loop([&ctx, request] { return test::ask_control(request, ctx); });
    };

    auto ticket = control({{"cmd", "start"}, {"test", "wsat"}, {"target", "sim:x"}, {"params", {{"rounds", "1"}}}});
    ASSERT_TRUE(ticket) << "the start waited on its target";
    ASSERT_TRUE((*ticket)["ok"]) << ticket->dump();
    EXPECT_FALSE(ticket->contains("run") && !(*ticket)["run"].is_null());
    ASSERT_EQ(identify.entered.wait_for(10s), std::future_status::ready) << "the run's thread never opened the target";

    EXPECT_TRUE(a_timer_fires(loop, clock)) << "a timer did not fire while the target blocked";
    auto status = control({{"cmd", "status"}});
    ASSERT_TRUE(status) << "status waited on the target";
    ASSERT_EQ((*status)["queued"].size(), 1u) << status->dump();
    EXPECT_EQ((*status)["queued"][0]["state"], "opening");

    identify.release();
    std::optional<std::int64_t> run;
    for (int i = 0; i < 500 && !run; ++i) {
      auto list = control({{"cmd", "list"}});
      ASSERT_TRUE(list);
      for (const auto& s : (*list)["schedules"]) {
        if (s.contains("run") && !s["run"].is_null()) run = s["run"].get<std::int64_t>();
      }
      if (!run) std::this_thread::sleep_for(20ms);  // the run's thread writes its row meanwhile
    }
    EXPECT_TRUE(run) << "the ticket never resolved into a run";
    loop.on_loop(
        [&] {
          runner.shutdown(5s);
          return true;
        },
        10s);
  }
}

// A drive that hangs in its Device Self-test command.
class HangingSelfTest final : public Device {
 public:
  explicit HangingSelfTest(Blocker& b) : blocker_(b) {}
  Result<DriveInfo> identify() override {
    DriveInfo d;
    d.serial = "SN-HANG";
    d.model = "Fake";
    d.path = "fake:hang";
    return d;
  }
  Result<SmartLog> read_smart() override { return SmartLog{}; }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake"};
  }
  std::optional<Error> abort_self_test() override {
    blocker_.block();
    return std::nullopt;
  }

 private:
  Blocker& blocker_;
};

TEST(LoopNeverWaits, ASelfTestCommandOnAHungDriveHoldsOnlyItsOwnRequest) {
  ManualClock clock;
  PublishedMetrics out;
  Blocker command;
  LoopThread loop;
  std::unique_ptr<DevicePoller> poller;
  // The command timeout is 30 s: longer than the test waits for anything.
  loop.on_loop([&] {
    poller = std::make_unique<DevicePoller>(loop.io, "fake:hang", std::make_unique<HangingSelfTest>(command),
                                            PollSettings{1h, 30s}, clock, out,
                                            [](const DriveInfo&, const HealthSnapshot&) { return PollObservation{}; });
    poller->start();
    return true;
  });
  auto first = std::make_shared<std::promise<std::optional<Error>>>();
  auto second = std::make_shared<std::promise<std::optional<Error>>>();
  ASSERT_TRUE(loop.on_loop([&] {
    poller->self_test(std::nullopt, [first](std::optional<Error> e) { first->set_value(std::move(e)); });
    return true;
  })) << "sending the command waited on the drive";
  ASSERT_EQ(command.entered.wait_for(10s), std::future_status::ready) << "the command never reached the drive";

  EXPECT_TRUE(a_timer_fires(loop, clock)) << "a timer did not fire while the drive hung";
  auto ping = loop.on_loop([] { return true; });
  EXPECT_TRUE(ping) << "the loop did not run while the drive hung";
  // A second command is answered at once: one waits at a time.
  ASSERT_TRUE(loop.on_loop([&] {
    poller->self_test(std::nullopt, [second](std::optional<Error> e) { second->set_value(std::move(e)); });
    return true;
  }));
  auto refused = second->get_future();
  ASSERT_EQ(refused.wait_for(2s), std::future_status::ready);
  auto r = refused.get();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, ErrorReason::busy) << r->message;

  auto answer = first->get_future();
  EXPECT_NE(answer.wait_for(100ms), std::future_status::ready) << "answered before the drive did";
  command.release();
  ASSERT_EQ(answer.wait_for(10s), std::future_status::ready) << "the drive's answer never came back to the loop";
  EXPECT_EQ(answer.get(), std::nullopt);
  loop.on_loop([&] {
    poller.reset();
    return true;
  });
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
