// The Fleet's rescan on a ManualClock: controllers that appear, vanish and
// come back (with another serial), seen through what the Fleet publishes.
// The clock fires every tick and rescan; a test waits only for the device
// threads' answers.
#include <gtest/gtest.h>

#include <mutex>

#include "polling/fleet.hpp"
#include "tests/unit/polling/fleet_harness.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::sample;

// Which controllers are plugged in, by path: a serial and the plug-in count.
// A handle answers while its path holds the controller it was made for, and
// "absent" (as libnvme's ENODEV does) once that one is gone.
struct Bus {
  struct Slot {
    std::string serial;
    int plugged = 0;
  };
  std::mutex mu;
  std::map<std::string, Slot> slots;
  int plugs = 0;

  void plug(const std::string& path, const std::string& serial) {
    std::lock_guard lock(mu);
    slots[path] = {serial, ++plugs};
  }
  void unplug(const std::string& path) {
    std::lock_guard lock(mu);
    slots.erase(path);
  }
  std::optional<std::string> serial_if_still(const std::string& path, int plugged) {
    std::lock_guard lock(mu);
    auto it = slots.find(path);
    if (it == slots.end() || it->second.plugged != plugged) return std::nullopt;
    return it->second.serial;
  }
};

class BusDevice final : public Device {
 public:
  BusDevice(Bus& bus, std::string path, int plugged) : bus_(bus), path_(std::move(path)), plugged_(plugged) {}
  Result<DriveInfo> identify() override {
    auto serial = bus_.serial_if_still(path_, plugged_);
    if (!serial) return gone("identify");
    DriveInfo d;
    d.serial = *serial;
    d.model = "Bus Drive";
    d.path = path_;
    d.backend = "nvme";
    return d;
  }
  Result<SmartLog> read_smart() override {
    if (!bus_.serial_if_still(path_, plugged_)) return gone("read_smart");
    SmartLog s;
    s.composite_temperature_k = 310;
    return s;
  }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake: format NVM: not faked"};
  }

 private:
  Error gone(const char* command) const {
    return Error{ErrorReason::absent, path_ + ": " + command + ": no such device"};
  }
  Bus& bus_;
  std::string path_;
  int plugged_;
};

class BusSource final : public DeviceSource {
 public:
  explicit BusSource(Bus& bus) : bus_(bus) {}
  std::vector<DeviceHandle> scan() override {
    std::lock_guard lock(bus_.mu);
    std::vector<DeviceHandle> out;
    for (const auto& [path, slot] : bus_.slots) {
      out.push_back({path, std::make_unique<BusDevice>(bus_, path, slot.plugged)});
    }
    return out;
  }

 private:
  Bus& bus_;
};

struct Fixture : test::FleetHarness {
  Bus bus;
  DaemonConfig config;
  std::unique_ptr<Fleet> fleet;

  Fixture() : FleetHarness("nvmond-fleet") {
    config.state_dir = dir.path();
    config.collection.poll_interval = 10s;
    config.collection.command_timeout = 5s;
    // Off the 10 s ticks, so that a rescan never meets a poll in flight.
    config.collection.rescan_interval = 65s;
  }
  void start() {
    std::vector<std::unique_ptr<DeviceSource>> sources;
    sources.push_back(std::make_unique<BusSource>(bus));
    fleet = std::make_unique<Fleet>(io, config, clock, out, store, std::move(sources));
    fleet->start();
  }
  // The Fleet started with one drive plugged in, and that drive polled once.
  void start_with(const std::string& path, const std::string& serial) {
    bus.plug(path, serial);
    start();
    advance_until(0s, [&] { return up(serial) == 1; });
  }
  double absences(const std::string& serial) {
    return sample(out.Collect(), "nvmond_collection_errors_total", {{"serial", serial}, {"reason", "absent"}});
  }
  template <typename Done>
  void advance_until(Duration d, Done done) {
    clock.advance(d);
    run_until(done);
  }
};

TEST(FleetRescan, ADriveThatAppearsIsPolledFromTheNextRescanOn) {
  Fixture f;
  f.start_with("fake:0", "SN-A");
  EXPECT_EQ(f.fleet->size(), 1u);

  f.bus.plug("fake:1", "SN-B");
  f.clock.advance(64s);
  f.io.poll();
  EXPECT_EQ(f.fleet->size(), 1u) << "found before the rescan";
  EXPECT_TRUE(std::isnan(f.up("SN-B")));
  f.advance_until(1s, [&] { return f.up("SN-B") == 1; });
  EXPECT_EQ(f.fleet->size(), 2u);
  EXPECT_EQ(f.fleet->up_count(), 2u);
}

TEST(FleetRescan, ADriveThatVanishesIsDownAsAbsentAndKeepsItsSeries) {
  Fixture f;
  f.start_with("fake:0", "SN-A");

  f.bus.unplug("fake:0");
  f.advance_until(10s, [&] { return f.up("SN-A") == 0; });
  EXPECT_EQ(f.absences("SN-A"), 1);
  EXPECT_EQ(f.fleet->up_count(), 0u);
  // Rescans find nothing at that path; the poller stays, reporting it down.
  f.advance_until(65s, [&] { return f.absences("SN-A") == 2; });
  EXPECT_EQ(f.fleet->size(), 1u);
  EXPECT_EQ(f.up("SN-A"), 0);
}

TEST(FleetRescan, ADriveBackWithAnotherSerialReplacesTheOldSeriesAtTheNextRescan) {
  Fixture f;
  f.start_with("fake:0", "SN-A");
  f.bus.unplug("fake:0");
  f.advance_until(10s, [&] { return f.up("SN-A") == 0; });

  f.bus.plug("fake:0", "SN-C");  // another drive in the same slot
  f.advance_until(10s, [&] { return f.absences("SN-A") == 2; });
  EXPECT_TRUE(std::isnan(f.up("SN-C"))) << "the old handle cannot see the new drive";

  f.advance_until(40s, [&] { return f.absences("SN-A") == 3; });
  // The rescan at 65 s replaces the absent poller with a fresh one.
  f.advance_until(5s, [&] { return f.up("SN-C") == 1; });
  EXPECT_TRUE(std::isnan(f.up("SN-A"))) << "the old drive's series outlived it";
  EXPECT_EQ(f.fleet->size(), 1u);
  EXPECT_EQ(f.fleet->up_count(), 1u);
}

TEST(FleetRescan, ADriveThatIsStillAnsweringKeepsItsPollerAndCounters) {
  Fixture f;
  f.start_with("fake:0", "SN-A");
  auto polls = [&] { return sample(f.out.Collect(), "nvmond_collections_total", {{"serial", "SN-A"}}); };
  for (int i = 1; i <= 6; ++i) f.advance_until(10s, [&] { return polls() == i + 1; });
  // 65 s: a rescan found the drive again; a fresh poller would restart at 1.
  f.advance_until(10s, [&] { return polls() >= 8; });
  EXPECT_EQ(polls(), 8);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
