// A reload (SIGHUP) as the daemon does it: the configuration read again with
// reloaded_config(), then the old Fleet dropped and a new one started. On a
// ManualClock, without a process or signals.
#include <gtest/gtest.h>

#include <fstream>

#include "daemon/reload.hpp"
#include "tests/support/config_error.hpp"
#include "tests/unit/polling/fleet_harness.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::sample;

std::string sim(const std::string& name, const std::string& serial) {
  return "[[sim]]\nname = \"" + name + "\"\nserial = \"" + serial + "\"\nprofile = \"datacenter\"\n";
}

struct Fixture : test::FleetHarness {
  Fixture() : FleetHarness("nvmond-reload") {}
  std::string file = dir.path() + "/nvmond.toml";
  DaemonConfig running;
  std::unique_ptr<Fleet> fleet;

  void write(const std::string& body) {
    std::ofstream(file) << "[daemon]\nlisten = \"127.0.0.1:9947\"\nstate_dir = \"" + dir.path() + "\"\n" + body;
  }
  void start(const std::string& body) {
    write(body);
    running = load_config(file);
    fleet = std::make_unique<Fleet>(io, running, clock, out, store);
    fleet->start();
  }
  // What Daemon::reload does with the drives: the old pollers go before the
  // new ones start.
  void switch_to(DaemonConfig next) {
    fleet.reset();
    running = std::move(next);
    fleet = std::make_unique<Fleet>(io, running, clock, out, store);
    fleet->start();
  }
};

TEST(Reload, AGoodFileAddsAndRemovesDrives) {
  Fixture f;
  f.start(sim("a", "SN-A") + sim("b", "SN-B"));
  f.run_until([&] { return f.up("SN-A") == 1 && f.up("SN-B") == 1; });

  f.write(sim("b", "SN-B") + sim("c", "SN-C"));
  f.switch_to(reloaded_config(f.running));
  f.run_until([&] { return f.up("SN-B") == 1 && f.up("SN-C") == 1; });
  EXPECT_TRUE(std::isnan(f.up("SN-A"))) << "a removed drive's series outlived the reload";
  EXPECT_EQ(f.fleet->size(), 2u);
}

TEST(Reload, ANewPollIntervalTakesEffect) {
  Fixture f;
  f.start("[collection]\npoll_interval = \"10s\"\n" + sim("a", "SN-A"));
  f.run_until([&] { return f.up("SN-A") == 1; });
  f.write("[collection]\npoll_interval = \"1m\"\n" + sim("a", "SN-A"));
  f.switch_to(reloaded_config(f.running));
  auto polls = [&] { return sample(f.out.Collect(), "nvmond_collections_total", {{"serial", "SN-A"}}); };
  f.run_until([&] { return polls() == 1; });
  f.clock.advance(30s);
  f.io.poll();
  EXPECT_EQ(polls(), 1) << "polled at the old interval";
  f.clock.advance(30s);
  f.run_until([&] { return polls() == 2; });
}

TEST(Reload, ABadFileIsRefusedAtFileLineColAndTheRunningDrivesGoOn) {
  Fixture f;
  f.start(sim("a", "SN-A"));
  f.run_until([&] { return f.up("SN-A") == 1; });

  f.write(sim("a", "SN-A") + "[collection]\npoll_interval = \"soon\"\n");
  const std::string error = test::config_error_of([&] { reloaded_config(f.running); });
  EXPECT_EQ(error.rfind(f.file + ":9:", 0), 0u) << error;
  EXPECT_EQ(f.running.sims.size(), 1u);

  auto polls = [&] { return sample(f.out.Collect(), "nvmond_collections_total", {{"serial", "SN-A"}}); };
  f.clock.advance(10s);
  f.run_until([&] { return polls() == 2; });
  EXPECT_EQ(f.up("SN-A"), 1);
}

TEST(Reload, SettingsThatNeedARestartKeepTheirRunningValues) {
  Fixture f;
  f.start(sim("a", "SN-A"));
  const std::string running_dir = f.running.state_dir;
  std::ofstream(f.file) << "[daemon]\nlisten = \"127.0.0.1:9950\"\nstate_dir = \"" + running_dir +
                               "/elsewhere\"\n[clock]\nmode = \"accelerated\"\nfactor = 60\n" + sim("a", "SN-A");
  DaemonConfig next = reloaded_config(f.running);
  EXPECT_EQ(next.listen, "127.0.0.1:9947");
  EXPECT_EQ(next.state_dir, running_dir);
  EXPECT_FALSE(next.clock.accelerated);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
