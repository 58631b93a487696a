// The poller's timing on a ManualClock: ticks, the command deadline and a
// late answer, driven by advancing the clock. Nothing here sleeps; a test
// waits only for the device thread to reach or leave a command.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

#include "polling/poller.hpp"
#include "tests/support/samples.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::sample;

// Answers at once, or, while closed, holds read_smart() until opened.
class GatedDevice final : public Device {
 public:
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool closed = false;
    int waiting = 0;
    std::atomic<int> smart_reads{0};

    void close() {
      std::lock_guard lock(mu);
      closed = true;
    }
    void open() {
      std::lock_guard lock(mu);
      closed = false;
      cv.notify_all();
    }
    // Blocks the test until the device thread is held at the gate.
    bool wait_for_a_held_command() {
      std::unique_lock lock(mu);
      return cv.wait_for(lock, 10s, [&] { return waiting > 0; });
    }
  };

  explicit GatedDevice(Gate& gate, std::promise<void>* destroyed = nullptr) : gate_(gate), destroyed_(destroyed) {}
  ~GatedDevice() override {
    if (destroyed_) destroyed_->set_value();
  }
  Result<DriveInfo> identify() override {
    DriveInfo d;
    d.serial = "SN-GATE";
    d.model = "Gated";
    d.path = "fake:gate";
    return d;
  }
  Result<SmartLog> read_smart() override {
    ++gate_.smart_reads;
    std::unique_lock lock(gate_.mu);
    ++gate_.waiting;
    gate_.cv.notify_all();
    gate_.cv.wait(lock, [&] { return !gate_.closed; });
    --gate_.waiting;
    return SmartLog{};
  }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake: format NVM: not faked"};
  }

 private:
  Gate& gate_;
  std::promise<void>* destroyed_;
};

const std::map<std::string, std::string> kDrive{{"serial", "SN-GATE"}};
const std::map<std::string, std::string> kTimeouts{{"serial", "SN-GATE"}, {"reason", "timeout"}};

struct Fixture {
  boost::asio::io_context io;
  ManualClock clock;
  PublishedMetrics out;
  GatedDevice::Gate gate;
  DevicePoller poller{io, "fake:gate", std::make_unique<GatedDevice>(gate), PollSettings{10s, 5s}, clock, out, nullptr};

  // Runs the loop until the outcome of the poll now in flight is in.
  void finish_poll(std::uint64_t polls_before) {
    while (polls() < static_cast<double>(polls_before + 1)) {
      ASSERT_EQ(io.run_one_for(10s), 1u) << "the device thread never answered";
    }
  }
  double polls() const {
    double v = sample(out.Collect(), "nvmond_collections_total", kDrive);
    return std::isnan(v) ? 0 : v;  // not published before the drive identified
  }
  double timeouts() const {
    double v = sample(out.Collect(), "nvmond_collection_errors_total", kTimeouts);
    return std::isnan(v) ? 0 : v;
  }
};

TEST(DevicePollerTiming, APollIsDueEveryIntervalOfClockTimeAndNotBefore) {
  Fixture f;
  f.poller.start();
  f.io.poll();  // the first tick is at once
  f.finish_poll(0);
  EXPECT_TRUE(f.poller.up());
  EXPECT_EQ(f.gate.smart_reads.load(), 1);
  f.clock.advance(9s);
  f.io.poll();
  EXPECT_EQ(f.gate.smart_reads.load(), 1);
  f.clock.advance(1s);
  f.io.poll();
  f.finish_poll(1);
  EXPECT_EQ(f.gate.smart_reads.load(), 2);
}

TEST(DevicePollerTiming, ACommandPastItsDeadlineMarksTheDriveDownWithReasonTimeout) {
  Fixture f;
  f.poller.start();
  f.io.poll();
  f.finish_poll(0);
  ASSERT_TRUE(f.poller.up());

  f.gate.close();
  f.clock.advance(10s);
  f.io.poll();  // the tick hands the poll to the device thread
  ASSERT_TRUE(f.gate.wait_for_a_held_command());
  f.clock.advance(5s - 1ms);
  f.io.poll();
  EXPECT_TRUE(f.poller.up()) << "down before its deadline";
  EXPECT_EQ(f.timeouts(), 0);

  EXPECT_FALSE(std::isnan(sample(f.out.Collect(), "nvme_temperature_celsius", kDrive)));

  f.clock.advance(1ms);
  f.io.poll();
  EXPECT_FALSE(f.poller.up());
  EXPECT_EQ(f.poller.last_error_reason(), ErrorReason::timeout);
  EXPECT_EQ(sample(f.out.Collect(), "nvme_up", kDrive), 0);
  EXPECT_EQ(f.timeouts(), 1);
  EXPECT_TRUE(std::isnan(sample(f.out.Collect(), "nvme_temperature_celsius", kDrive)))
      << "health series of a drive that stopped answering";

  // Ticks while the command hangs send nothing more to the device.
  for (int i = 0; i < 3; ++i) {
    f.clock.advance(10s);
    f.io.poll();
  }
  EXPECT_EQ(f.gate.smart_reads.load(), 2);
  EXPECT_EQ(f.timeouts(), 1) << "one hung command is one timeout";

  f.gate.open();  // the late answer brings the drive back
  f.finish_poll(1);
  EXPECT_TRUE(f.poller.up());
  EXPECT_EQ(sample(f.out.Collect(), "nvme_up", kDrive), 1);
  EXPECT_EQ(f.timeouts(), 1);
}

TEST(DevicePollerTiming, AnAnswerBeforeTheDeadlineCancelsIt) {
  Fixture f;
  f.poller.start();
  f.io.poll();
  f.finish_poll(0);
  f.clock.advance(1h);  // the deadline of the first poll would have passed long ago
  f.io.poll();
  f.finish_poll(1);
  EXPECT_TRUE(f.poller.up());
  EXPECT_EQ(f.timeouts(), 0);
}

// A poller destroyed while its device is in a command (a reload) leaves the
// thread behind; the next poller of that path reports a timeout at each tick
// instead of starting a thread, and polls again once the command returns.
TEST(DevicePollerTiming, AnAbandonedCommandHoldsTheNextPollerOfThePathUntilItReturns) {
  boost::asio::io_context io;
  ManualClock clock;
  PublishedMetrics out;
  GatedDevice::Gate stuck;
  std::promise<void> destroyed;
  const int abandoned_before = DevicePoller::abandoned_threads();
  auto first = std::make_unique<DevicePoller>(io, "fake:gate", std::make_unique<GatedDevice>(stuck, &destroyed),
                                              PollSettings{10s, 5s}, clock, out, nullptr);
  stuck.close();
  first->start();
  io.poll();
  ASSERT_TRUE(stuck.wait_for_a_held_command());
  first.reset();
  EXPECT_EQ(DevicePoller::abandoned_threads(), abandoned_before + 1);

  GatedDevice::Gate fresh;
  DevicePoller second(io, "fake:gate", std::make_unique<GatedDevice>(fresh), PollSettings{10s, 5s}, clock, out,
                      nullptr);
  second.start();
  for (int tick = 0; tick < 3; ++tick) {
    io.poll();
    EXPECT_FALSE(second.up());
    EXPECT_EQ(second.last_error_reason(), ErrorReason::timeout);
    clock.advance(10s);
  }
  io.poll();
  EXPECT_EQ(fresh.smart_reads.load(), 0);

  stuck.open();
  // The abandoned thread drops the last reference to its device as it exits.
  ASSERT_EQ(destroyed.get_future().wait_for(10s), std::future_status::ready);
  clock.advance(10s);
  io.poll();
  while (!second.up()) ASSERT_EQ(io.run_one_for(10s), 1u) << "polling never resumed";
  EXPECT_EQ(fresh.smart_reads.load(), 1);
  EXPECT_EQ(sample(out.Collect(), "nvme_up", kDrive), 1);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
