// The event loop stays free while another program holds the history
// database's write lock: the hourly compaction falls due on a ManualClock,
// and a control `status` posted after it is answered. The loop runs on its
// own thread, as in the daemon; the store's writer waits a minute on the
// lock, so a compaction run on the loop would hold the answer past the 10 s
// this test waits for it.
#include <gtest/gtest.h>

#include <boost/asio/post.hpp>

#include <filesystem>
#include <future>
#include <thread>

#include "daemon/control/control_commands.hpp"
#include "tests/support/control_json.hpp"
#include "daemon/history_compaction.hpp"
#include "store/history_store.hpp"
#include "tests/support/loop_thread.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/write_lock.hpp"
#include "tests/unit/schedule/fake_soak_control.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using nlohmann::json;

HistoryStoreOptions waits_a_minute_on_locks() {
  HistoryStoreOptions o;
  o.writes.synchronous_full = false;
  o.writes.busy_timeout = 60s;
  return o;
}

using test::LoopThread;

TEST(LoopWithALockedStore, ControlStatusIsAnsweredWhileCompactionMeetsAnotherProgramsWriteLock) {
  test::TempDir dir{"nvmond-loop-locked"};
  const std::string db = (std::filesystem::path(dir.path()) / SqliteStore::kFileName).string();
  SystemClock retry_clock;
  ManualClock clock;
  auto store = open_history_store(dir.path(), retry_clock, {}, waits_a_minute_on_locks());
  RetentionPolicy retention;
  FakeSoakControl soaks;
  SoakScheduler scheduler{soaks, nullptr};
  ControlContext ctx{soaks, scheduler, clock, [] { return std::vector<DriveSummary>{}; }, [] {}};
  test::WriteLockHolder other(db);
  {
    LoopThread loop;
    HistoryCompaction compaction(loop.io, clock, *store, retention);
    compaction.start();
    clock.advance(HistoryCompaction::kEvery);  // the compaction is now queued on the loop

    std::promise<json> answer;
    boost::asio::post(loop.io, [&] { answer.set_value(test::ask_control(json{{"cmd", "status"}}, ctx)); });
    auto reply = answer.get_future();
    const bool answered = reply.wait_for(10s) == std::future_status::ready;
    other.release();  // lets a loop stuck in the compaction go, so the test can end
    ASSERT_TRUE(answered) << "the loop did not answer status within 10 s";
    EXPECT_TRUE(reply.get()["ok"]);
    compaction.stop();
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
