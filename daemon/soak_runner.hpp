#pragma once
// PTS runs owned by the daemon: [[soak]] tables start once when the daemon
// starts, one after another on the runner's own thread; a run that a crash or
// a stop left unfinished in the store is resumed at its next round.
//
// [[soak]]
// name = "dc0-wsat"            # unique; the run's key in the store
// test = "wsat"                # a test name (README "How to run a soak")
// target = "sim:dc0"           # a [[sim]] drive (name or serial), or a device
// params = { rounds = 600, round = "60s" }   # as `nvmonctl test run --set`
//
// run.json of each run lands in STATE_DIR/runs/NAME-RUNID/run.json.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectors/sim/sim_device.hpp"
#include "core/config_reader.hpp"
#include "daemon/config.hpp"
#include "daemon/test_targets.hpp"
#include "pts/run_executor.hpp"
#include "pts/test_target.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

class SoakRunner {
 public:
  // Every referenced object must outlive the runner.
  SoakRunner(std::vector<SoakSpec> soaks, std::string state_dir, const std::vector<SimSettings>& sims,
             const SafetyGuard& guard, const SimDeviceSource* source);
  ~SoakRunner();  // stop()s
  void start();
  // Ends the element in progress at its next I/O; the run stays resumable.
  void stop();

 private:
  void run_all();
  std::vector<SoakSpec> soaks_;
  std::string state_dir_;
  const std::vector<SimSettings>& sims_;
  const SafetyGuard& guard_;
  const SimDeviceSource* source_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  RunExecutor* current_ = nullptr;  // guarded by mu_
  std::thread thread_;
};

}  // namespace nvmond
