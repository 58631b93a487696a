// Polling goes on while another program holds the history database's write
// lock: a Fleet on a ManualClock over the daemon's history store (a real
// SQLite file) and a second, real connection inside BEGIN EXCLUSIVE. The
// store's writer waits a minute on the lock, so a poll that wrote history
// itself would not answer within run_until's 10 s.
#include <gtest/gtest.h>

#include <filesystem>

#include "store/history_store.hpp"
#include "tests/support/samples.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/write_lock.hpp"
#include "polling/fleet.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::sample;

class SteadyDevice final : public Device {
 public:
  Result<DriveInfo> identify() override {
    DriveInfo d;
    d.serial = "SN-LOCKED";
    d.model = "Steady Drive";
    d.path = "fake:0";
    d.backend = "nvme";
    d.capacity_bytes = 1ull << 40;
    return d;
  }
  Result<SmartLog> read_smart() override {
    SmartLog s;
    s.composite_temperature_k = 310;
    s.data_units_written = 1000 * ++polls_;
    return s;
  }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake: format NVM: not faked"};
  }

 private:
  int polls_ = 0;
};

class OneDrive final : public DeviceSource {
 public:
  std::vector<DeviceHandle> scan() override {
    std::vector<DeviceHandle> out;
    out.push_back({"fake:0", std::make_unique<SteadyDevice>()});
    return out;
  }
};

HistoryStoreOptions waits_a_minute_on_locks() {
  HistoryStoreOptions o;
  o.writes.synchronous_full = false;
  o.writes.busy_timeout = 60s;
  o.writer.group_interval = 0ms;
  return o;
}

struct Fixture {
  test::TempDir dir{"nvmond-locked"};
  std::string db = (std::filesystem::path(dir.path()) / SqliteStore::kFileName).string();
  boost::asio::io_context io;
  ManualClock clock;
  SystemClock retry_clock;
  std::unique_ptr<StoreWriter> store = open_history_store(dir.path(), retry_clock, {}, waits_a_minute_on_locks());
  PublishedMetrics out;
  DaemonConfig config;
  std::unique_ptr<Fleet> fleet;

  Fixture() {
    config.state_dir = dir.path();
    config.collection.poll_interval = 10s;
    config.collection.command_timeout = 5s;
    config.collection.rescan_interval = 1h;
    std::vector<std::unique_ptr<DeviceSource>> sources;
    sources.push_back(std::make_unique<OneDrive>());
    fleet = std::make_unique<Fleet>(io, config, clock, out, *store, std::move(sources));
    fleet->start();
  }
  double up() const { return sample(out.Collect(), "nvme_up", {{"serial", "SN-LOCKED"}}); }
  double polls() const { return sample(out.Collect(), "nvmond_collections_total", {{"serial", "SN-LOCKED"}}); }
  template <typename Done>
  void run_until(Done done) {
    io.poll();
    while (!done()) ASSERT_EQ(io.run_one_for(10s), 1u) << "no answer from the device thread";
  }
};

TEST(FleetWithALockedStore, DrivesArePolledAndUpWhileAnotherProgramHoldsTheWriteLock) {
  Fixture f;
  f.run_until([&] { return f.polls() == 1; });
  test::WriteLockHolder other(f.db);
  for (int i = 2; i <= 4; ++i) {
    f.clock.advance(10s);
    f.run_until([&] { return f.polls() == i; });
    EXPECT_EQ(f.up(), 1) << "poll " << i;
  }
  EXPECT_GE(f.store->counters().queued, 3u) << "the locked polls wait in the queue";

  other.release();
  f.fleet.reset();
  EXPECT_EQ(f.store->stop(10s), 0u);
  EXPECT_EQ(test::count_rows(f.db, "SELECT count(*) FROM samples"), 4) << "every poll is on disk";
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
