#pragma once
// The daemon's configuration: one TOML file, validated whole before anything
// runs (so a bad SIGHUP reload changes nothing). Every error names
// file:line:col. Keys are documented in README.md ("Configuration").
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/analytics/config.hpp"
#include "collectors/nvme/libnvme_source.hpp"
#include "collectors/sim/sim_drive_spec.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "daemon/control_server.hpp"
#include "daemon/jobs_config.hpp"

namespace nvmond {

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

struct DaemonConfig {
  std::string file;
  std::string listen = "127.0.0.1:9947";
  std::string state_dir;  // default: $STATE_DIRECTORY (systemd) or /var/lib/nvmond
  log::Level log_level = log::Level::info;
  CollectionSettings collection;
  ClockSettings clock;
  std::optional<NvmeSettings> nvme;  // absent: no real devices
  std::vector<SimSettings> sims;
  AnalyticsConfig analytics;
  JobsConfig jobs;  // [[job]] workloads started with the daemon, [safety]
  // [control]: the nvmonctl socket. `control_explicit`: the path was
  // configured, so failing to bind it stops the start (the default only warns).
  ControlSettings control;
  bool control_explicit = false;
  // Endurance ratings by serial, from [[drive]] tables and [[sim]] specs.
  std::map<std::string, DriveRating> ratings;
};

// Throws ConfigError ("file:line:col: message") on any syntax or semantic error.
DaemonConfig load_config(const std::string& path);

// `nvmond --check-config` and `nvmonctl check-config`: prints "PATH: ok" and
// returns 0, or prints the error to stderr and returns 1.
int check_config_command(const std::string& path);

}  // namespace nvmond
