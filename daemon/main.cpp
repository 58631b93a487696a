// nvmond: NVMe health, wear and thermal monitoring daemon.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "core/build_info.hpp"
#include "core/config_reader.hpp"
#include "core/log.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/daemon.hpp"
#include "daemon/poller.hpp"
#include "store/store_writer.hpp"

int main(int argc, char** argv) {
  CLI::App app{"nvmond: NVMe SMART/health, wear and thermal-throttling exporter"};
  std::string config_path;
  std::string check_path;
  app.add_option("-c,--config", config_path, "TOML configuration file");
  app.add_option("--check-config", check_path, "Validate a configuration file and exit");
  app.set_version_flag("--version", nvmond::build::kVersion);
  CLI11_PARSE(app, argc, argv);

  if (!check_path.empty()) return nvmond::check_daemon_config(check_path);
  if (config_path.empty()) {
    std::fprintf(stderr, "nvmond: --config FILE is required (or --check-config FILE)\n");
    return 2;
  }
  int rc = 0;
  try {
    nvmond::Daemon daemon(nvmond::load_daemon_config(config_path));
    rc = daemon.run();
  } catch (const std::exception& e) {
    nvmond::log::error("{}", e.what());
    return 1;
  }
  if (nvmond::DevicePoller::abandoned_threads() > 0 || nvmond::StoreWriter::abandoned_writers() > 0) {
    // A thread is blocked inside a device command or a database commit; exit
    // without waiting for it.
    std::fflush(nullptr);
    _exit(rc);
  }
  return rc;
}
