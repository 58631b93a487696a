#pragma once
// The daemon's configuration: one TOML file, validated whole before anything
// runs (so a bad SIGHUP reload changes nothing). Every error names
// file:line:col. Keys are documented in docs/configuration.md.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analytics/config.hpp"
#include "collectors/nvme/libnvme_source.hpp"
#include "sim/sim_drive_spec.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "control/control_settings.hpp"
#include "runmodel/request.hpp"
#include "workloads/jobs_config.hpp"
#include "collectors/device.hpp"
#include "schedule/schedule.hpp"
#include "schedule/soak_scheduler.hpp"

namespace nvmond {

namespace http {
struct Security;
}

struct CollectionSettings {
  Duration poll_interval = std::chrono::seconds(10);
  Duration command_timeout = std::chrono::seconds(5);
  Duration rescan_interval = std::chrono::seconds(60);
};

struct ClockSettings {
  // "system": real time. "accelerated": `factor` times faster from `start`
  // (demos and long-horizon tests: 30 days of wear in seconds).
  bool accelerated = false;
  double factor = 1;
  std::optional<WallTime> start;
};

struct NvmeSettings {
  NvmeSelection selection;
  std::optional<Duration> poll_interval;
};

struct SimSettings {
  SimDriveSpec spec;
  std::optional<Duration> poll_interval;
};

// One [[soak]] table: a PTS test the daemon runs (soak/soak_runner.hpp),
// and when (schedule/soak_scheduler.hpp).
struct SoakSpec {
  std::string name;
  std::string test;
  std::string target;
  TestRequest request;  // validated when the file loads, without a drive
  SoakTiming timing;
  SoakEntry entry() const { return SoakEntry{SoakRequest{name, request, target}, timing}; }
};

// One [[selftest]] table: a Device Self-test the daemon starts on each of
// `drives` on `schedule` (selftest/self_test_scheduler.hpp).
struct SelfTestSpec {
  std::string name;
  std::vector<std::string> drives;  // serials
  SelfTestKind kind = SelfTestKind::short_test;
  Schedule schedule;
};

// [telemetry]: saving the drives' controller-initiated telemetry
// (drivelog/telemetry_capture.hpp) under STATE_DIR/telemetry.
struct TelemetrySettings {
  bool capture = true;
  Duration min_interval = std::chrono::hours(1);  // per drive, failed attempts included
  unsigned data_area = 3;                         // read data areas 1..data_area
  std::uint64_t max_bytes_per_drive = std::uint64_t{256} << 20;
  std::uint64_t max_bytes = std::uint64_t{1} << 30;  // every drive's captures together
  // The largest capture that can be kept: a larger log is read with fewer
  // data areas.
  std::uint64_t max_capture_bytes() const { return std::min(max_bytes_per_drive, max_bytes); }
};

struct DaemonConfig {
  std::string file;
  std::string listen = "127.0.0.1:9947";
  // [daemon] web_config: exporter-toolkit web config (TLS, basic auth), read
  // and its certificates loaded by the daemon's WebConfigLoader; null
  // security = plain HTTP.
  std::string web_config;
  std::shared_ptr<const http::Security> security;
  std::string state_dir;  // default: $STATE_DIRECTORY (systemd) or /var/lib/nvmond
  log::Level log_level = log::Level::info;
  CollectionSettings collection;
  ClockSettings clock;
  std::optional<NvmeSettings> nvme;  // absent: no real devices
  std::vector<SimSettings> sims;
  AnalyticsConfig analytics;
  JobsConfig jobs;                      // [[job]] workloads started with the daemon, [safety]
  std::vector<SoakSpec> soaks;          // [[soak]] PTS runs started with the daemon
  std::vector<SelfTestSpec> selftests;  // [[selftest]] schedules
  TelemetrySettings telemetry;
  // [daemon] max_concurrent_selftests: drives self-testing at once from schedules.
  std::int64_t max_concurrent_selftests = 1;
  // [control]: the nvmonctl socket. `control_explicit`: the path was
  // configured, so failing to bind it stops the start (the default only warns).
  ControlSettings control;
  bool control_explicit = false;
  // Endurance ratings by serial, from [[drive]] tables and [[sim]] specs.
  std::map<std::string, DriveRating> ratings;
};

// Each [[sim]] drive is a poller thread and a state file: past a few hundred
// the simulation is a load test of the host, not a fleet.
inline constexpr std::size_t kMaxSimDrives = 256;

// Polls on an accelerated clock still happen in real time, every
// poll_interval / factor: below this they would spin a core.
inline constexpr Duration kMinRealPollInterval = std::chrono::milliseconds(1);

// Why `c`'s clock would poll some drive faster than kMinRealPollInterval of
// real time, or nullopt. load_config refuses such a file; a reload, which
// keeps the running clock, checks its intervals against that clock.
std::optional<std::string> real_poll_problem(const DaemonConfig& c);

// Throws ConfigError ("file:line:col: message") on any syntax or semantic
// error, for a path that is not a regular file, and for a configuration that
// monitors no drive (no [[sim]] and no [nvme] devices; an empty file is one).
// A daemon must monitor something (an empty file is a mistake); a tool that
// only reads [safety], [[sim]] or [[job]] from the same file need not.
enum class ConfigUse { daemon, tool };
// $STATE_DIRECTORY (systemd's StateDirectory=, the first of several) or
// /var/lib/nvmond: [daemon] state_dir when the file names none.
std::string default_state_dir();
// Turns [daemon] web_config's file into the HTTP server's security; throws
// ConfigError at file:line:col. The daemon passes the HTTP server's loader
// (daemon/daemon_config.hpp); a tool passes none, so it needs no TLS
// library, and `security` stays null.
using WebConfigLoader = std::function<std::shared_ptr<const http::Security>(const std::string& path)>;
DaemonConfig load_config(const std::string& path, ConfigUse use = ConfigUse::daemon,
                         const WebConfigLoader& load_web_config = {});

// `nvmond --check-config` and `nvmonctl check-config`: prints "PATH: ok" and
// returns 0, or prints the error to stderr and returns 1. Without a loader
// the web config's contents are left to `nvmond --check-config`.
int check_config_command(const std::string& path, const WebConfigLoader& load_web_config = {});

}  // namespace nvmond
