#pragma once
// The configuration as the daemon loads it: the shared reader
// (services/config.hpp) with [daemon] web_config turned into the HTTP
// server's TLS context and users, so a bad web config fails the start,
// --check-config and a reload like any other key.
#include <string>

#include "services/config.hpp"

namespace nvmond {

// Throws ConfigError ("file:line:col: message"), also for the web config.
DaemonConfig load_daemon_config(const std::string& path);

// `nvmond --check-config`: check_config_command with the web config loaded.
int check_daemon_config(const std::string& path);

}  // namespace nvmond
