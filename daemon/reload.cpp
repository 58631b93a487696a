#include "daemon/reload.hpp"

#include "core/config_reader.hpp"
#include "core/log.hpp"
#include "daemon/daemon_config.hpp"

namespace nvmond {

DaemonConfig reloaded_config(const DaemonConfig& running) {
  DaemonConfig next = load_daemon_config(running.file);
  if (next.listen != running.listen) {
    log::warn("listen address changes need a restart; keeping {}", running.listen);
    next.listen = running.listen;
  }
  if (next.clock.accelerated != running.clock.accelerated || next.clock.factor != running.clock.factor) {
    log::warn("clock changes need a restart; keeping the running clock");
    next.clock = running.clock;
  }
  if (auto problem = real_poll_problem(next)) {
    throw ConfigError(running.file + ": with the running clock, factor " + *problem);
  }
  // The history and the simulated drives' state live there: moving them
  // under a running daemon would split each drive's history in two.
  if (next.state_dir != running.state_dir) {
    log::warn("state_dir changes need a restart; keeping {}", running.state_dir);
    next.state_dir = running.state_dir;
  }
  return next;
}

}  // namespace nvmond
