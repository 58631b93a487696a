#include "daemon/daemon_config.hpp"

#include "core/config_reader.hpp"
#include "http/security.hpp"

namespace nvmond {
namespace {

std::shared_ptr<const http::Security> load_web_config(const std::string& path) {
  try {
    return http::load_security(path);
  } catch (const http::WebConfigError& e) {
    throw ConfigError(e.what());
  }
}

}  // namespace

DaemonConfig load_daemon_config(const std::string& path) {
  return load_config(path, ConfigUse::daemon, load_web_config);
}

int check_daemon_config(const std::string& path) { return check_config_command(path, load_web_config); }

}  // namespace nvmond
