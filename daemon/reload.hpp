#pragma once
// What SIGHUP switches to. Kept out of Daemon so that a test can reload a
// configuration without a process, signals or an HTTP server.
#include "services/config.hpp"

namespace nvmond {

// `running.file` read again, with the settings that need a restart (listen
// address, clock, state_dir) kept from `running`; each kept change is logged.
// Throws ConfigError ("file:line:col: message") for a bad file, or for
// intervals too short for the running clock; `running` is never modified.
DaemonConfig reloaded_config(const DaemonConfig& running);

}  // namespace nvmond
