// The Clock's timers. A ManualClock fires them only when it is advanced (no
// test sleeps); the running clocks' timers are Asio's.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include <string>
#include <vector>

#include "core/clock.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

class ManualClockTimer : public ::testing::Test {
 protected:
  // A clock timer armed `delay` ahead whose call counts itself in `fired`.
  std::unique_ptr<Timer> counting(Duration delay) {
    auto t = clock.timer(io);
    t->arm(delay, [this] { ++fired; });
    return t;
  }

  boost::asio::io_context io;
  ManualClock clock;
  int fired = 0;
};

TEST_F(ManualClockTimer, FiresOnlyOnceTheClockReachesIt) {
  auto t = counting(10s);
  io.poll();
  clock.advance(9s);
  io.poll();
  EXPECT_EQ(fired, 0);
  clock.advance(1s);
  EXPECT_EQ(fired, 0) << "the call runs on the io_context, not inside advance()";
  io.poll();
  EXPECT_EQ(fired, 1);
  clock.advance(1h);
  io.poll();
  EXPECT_EQ(fired, 1) << "a timer fires once per arm";
}

TEST_F(ManualClockTimer, DueTimersRunInDueOrderWhateverTheArmingOrder) {
  std::vector<std::string> order;
  auto late = clock.timer(io);
  auto early = clock.real_timer(io);
  auto middle = clock.timer(io);
  late->arm(30s, [&] { order.push_back("late"); });
  early->arm(10s, [&] { order.push_back("early"); });
  middle->arm(20s, [&] { order.push_back("middle"); });
  clock.advance(1min);
  io.poll();
  EXPECT_EQ(order, (std::vector<std::string>{"early", "middle", "late"}));
}

TEST_F(ManualClockTimer, AZeroDelayIsDueAtOnce) {
  auto t = counting(0s);
  io.poll();
  EXPECT_EQ(fired, 1);
}

TEST_F(ManualClockTimer, CancelAndRearmDropTheCallEvenWhenAlreadyPosted) {
  std::vector<std::string> ran;
  auto t = clock.timer(io);
  t->arm(1s, [&] { ran.push_back("first"); });
  clock.advance(1s);  // posted, not yet run
  t->arm(5s, [&] { ran.push_back("second"); });
  io.poll();
  EXPECT_TRUE(ran.empty());
  t->cancel();
  clock.advance(1h);
  io.poll();
  EXPECT_TRUE(ran.empty());
  EXPECT_EQ(clock.armed_timers(), 0u);
}

TEST_F(ManualClockTimer, ADestroyedTimerNeverCalls) {
  auto t = counting(1s);
  clock.advance(1s);
  t.reset();
  io.poll();
  EXPECT_EQ(fired, 0);
}

TEST_F(ManualClockTimer, ACallThatRearmsCountsFromTheTimeItRuns) {
  int ticks = 0;
  auto t = clock.timer(io);
  std::function<void()> tick = [&] {
    ++ticks;
    t->arm(10s, tick);
  };
  t->arm(10s, tick);
  clock.advance(35s);  // one advance: one firing
  io.poll();
  EXPECT_EQ(ticks, 1);
  for (int i = 0; i < 3; ++i) {
    clock.advance(10s);
    io.poll();
  }
  EXPECT_EQ(ticks, 4);
}

TEST_F(ManualClockTimer, AnArmedTimerKeepsItsContextBusyLikeARealOne) {
  auto t = clock.timer(io);
  t->arm(1s, [] {});
  EXPECT_EQ(clock.armed_timers(), 1u);
  EXPECT_EQ(io.poll(), 0u);
  EXPECT_FALSE(io.stopped()) << "work outstanding while armed";
  t->cancel();
  EXPECT_FALSE(io.stopped()) << "stopped inside cancel(), before the loop ran";
  io.poll();
  EXPECT_TRUE(io.stopped()) << "nothing left once cancelled";
}

TEST_F(ManualClockTimer, SetFiresWhatTheNewTimeHasPassed) {
  auto t = counting(1h);
  clock.set(clock.wall() + 2h);
  io.poll();
  EXPECT_EQ(fired, 1);
}

// The running clocks' timers are Asio's: a due one runs from io.run(), and
// cancelling before it ran drops it. Zero delays only: nothing here waits.
TEST(SystemClockTimer, RunsADueCallAndDropsACancelledOne) {
  boost::asio::io_context io;
  SystemClock clock;
  int fired = 0;
  auto t = clock.timer(io);
  t->arm(0s, [&] { ++fired; });
  io.run();
  EXPECT_EQ(fired, 1);
  io.restart();
  auto dropped = clock.real_timer(io);
  dropped->arm(0s, [&] { ++fired; });
  dropped->cancel();
  io.run();
  EXPECT_EQ(fired, 1);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
