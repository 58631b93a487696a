// The whole scrape of a daemon watching simulated drives, compared byte for
// byte with tests/fixtures/golden/daemon_scrape.prom (and linted by promtool
// with the other golden files), the way node_exporter's end-to-end test
// compares its /metrics with a checked-in file. The drive-level golden files
// check one renderer each; this one checks what a scrape really returns
// after the daemon's own path: configuration read from TOML, the Fleet's
// pollers on their threads, analytics over the SQLite history, telemetry
// captures, published snapshots and the /metrics route. A change that moves
// code between folders must leave it unchanged.
//
// Deterministic by construction: the clock is a ManualClock started at a
// fixed time and advanced poll by poll, so every drive is polled exactly
// kPolls times at the same clock times in every run. Two things are left
// out, and only these:
// - the process's own registry (build info, HTTP server, store writer, state
//   files): the endpoint gets an empty one, as those families describe the
//   process and the machine, not the drives;
// - the value (never the series) of nvmond_collection_duration_seconds: how
//   long the last poll took in real time (steady_clock), written as 0.
// Every nvme_* family is compared as served. The history is the daemon's
// SQLite store, written at each poll: the daemon's StoreWriter in front of
// it commits on a real-time second, which a manual clock does not drive.
//
// Regenerate after an intended change and review the diff:
//   NVMOND_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>

#include "daemon/daemon_config.hpp"
#include "daemon/metrics_endpoint.hpp"
#include "tests/support/golden_file.hpp"
#include "tests/unit/polling/fleet_harness.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::sample;

const WallTime kStart = std::chrono::sys_days(std::chrono::year(2026) / 5 / 28);
constexpr int kPolls = 40;  // 6.5 minutes at 10 s: the hot drives reach their throttle points

// Five drives of different kinds: a datacenter U.2 written flat out (heats
// through both throttle levels, OCP C0/C3/C1), a consumer M.2 through its
// SLC cache (throttles without host thermal management), a datacenter drive
// with a history of faults (an OCP panic, media errors, a thermal excursion,
// a failed self-test, a degraded link, telemetry), a generic drive whose
// sensor sticks, and one that fails every command.
constexpr const char* kDrives = R"(
[collection]
poll_interval = "10s"
rescan_interval = "1h"

[telemetry]
min_interval = "1m"

[[sim]]
name = "dc-hot"
serial = "SN-DC-HOT"
profile = "datacenter"
write_rate = "1800MB/s"

[[sim]]
name = "m2"
serial = "SN-M2"
profile = "consumer"
write_rate = "1200MB/s"
read_rate = "200MB/s"

[[sim]]
name = "dc-faults"
serial = "SN-DC-FAULTS"
profile = "datacenter"
write_dwpd = 1
ocp_panic = true
media_error_interval = "2m"
thermal_excursion_at = 2026-05-28T00:03:00Z
self_test_failure = true
degraded_link = true
telemetry_interval = "2m"

[[sim]]
name = "generic"
serial = "SN-GENERIC"
profile = "generic"
write_rate = "900MB/s"
fault = "stuck_temperature"

[[sim]]
name = "broken"
serial = "SN-BROKEN"
fault = "fail"
)";

const char* const kAnswering[] = {"SN-DC-HOT", "SN-M2", "SN-DC-FAULTS", "SN-GENERIC"};

// The one value of the scrape that is real time (see above), zeroed.
std::string without_poll_durations(const std::string& scrape) {
  constexpr std::string_view kSeries = "nvmond_collection_duration_seconds{";
  std::istringstream in(scrape);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.starts_with(kSeries)) line = line.substr(0, line.rfind(' ')) + " 0";
    out += line + "\n";
  }
  return out;
}

struct ScrapedDaemon : test::FleetHarness {
  ScrapedDaemon() : FleetHarness("nvmond-scrape-golden") {
    const std::string file = dir.path() + "/nvmond.toml";
    std::ofstream(file) << "[daemon]\nstate_dir = \"" << dir.path() << "\"\n" << kDrives;
    config = load_daemon_config(file);
    clock.set(kStart);
    fleet = std::make_unique<Fleet>(io, config, clock, out, store);
    fleet->read_throughput(throughput);
    fleet->start();
  }
  // Every answering drive has completed `n` polls, and the failing one has
  // published (it has no serial, so nothing counts its polls; what it
  // publishes is the same after each).
  bool polled(int n) const {
    const auto families = out.Collect();
    for (const char* serial : kAnswering) {
      if (sample(families, "nvmond_collections_total", {{"serial", serial}}) != n) return false;
    }
    return !std::isnan(sample(families, "nvme_up", {{"path", "sim:broken"}}));
  }
  std::string scrape() {
    // Not owned: the harness's snapshots outlive the endpoint.
    std::shared_ptr<PublishedMetrics> published(std::shared_ptr<void>{}, &out);
    MetricsEndpoint endpoint(std::make_shared<prometheus::Registry>(), published);
    http::Request get;
    get.method = "GET";
    get.target = "/metrics";
    const http::Response r = endpoint(get);
    EXPECT_EQ(r.status, 200);
    return r.whole_body();
  }

  DaemonConfig config;
  ThroughputFeed throughput;
  std::unique_ptr<Fleet> fleet;
};

TEST(DaemonScrapeGolden, SimulatedDrivesPolledFortyTimesOnAFixedClock) {
  ScrapedDaemon d;
  for (int n = 1; n <= kPolls; ++n) {
    if (n > 1) d.clock.advance(10s);
    d.run_until([&] { return d.polled(n); });
  }
  const std::string scrape = d.scrape();
  // What the drives were chosen to show is there (else the golden would
  // freeze a scrape that no longer shows it).
  const auto families = d.out.Collect();
  EXPECT_GT(sample(families, "nvme_thermal_management_transitions_total", {{"serial", "SN-DC-HOT"}}), 0);
  EXPECT_EQ(sample(families, "nvme_ocp_panic", {{"serial", "SN-DC-FAULTS"}}), 1);
  EXPECT_EQ(sample(families, "nvme_up", {{"path", "sim:broken"}}), 0);
  test::expect_golden_text("daemon_scrape.prom", without_poll_durations(scrape));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
