// A poller destroyed while its device is in a command (a reload, a SIGTERM)
// abandons the thread; when the command returns the thread must exit without
// running the observer, which touches state its Fleet has already freed.
#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "daemon/poller.hpp"

namespace nvmond {
namespace {

using namespace std::chrono_literals;

class BlockingDevice final : public Device {
 public:
  BlockingDevice(std::promise<void>& entered, std::shared_future<void> release,
                 std::promise<void>& destroyed)
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
  Result<TemperatureThresholds> read_temperature_thresholds() override {
    return TemperatureThresholds{};
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
      io, "fake:0",
      std::make_unique<BlockingDevice>(entered, release.get_future().share(), destroyed),
      PollSettings{1h, 1h}, clock, out,
      [&](const DriveInfo&, const HealthSnapshot&) {
        ++observer_calls;
        return std::vector<prometheus::MetricFamily>{};
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

}  // namespace
}  // namespace nvmond
