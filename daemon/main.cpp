// nvmond: NVMe health, wear and thermal monitoring daemon.
#include <CLI/CLI.hpp>

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "core/build_info.hpp"
#include "core/config_reader.hpp"
#include "core/log.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/daemon.hpp"
#include "polling/poller.hpp"
#include "store/store_writer.hpp"

int main(int argc, char** argv) {
  // One poll thread per drive: glibc gives threads up to 8 malloc arenas per
  // core, each keeping the memory its threads freed. At 256 simulated drives
  // polled every second on 2 cores that was 15 arenas; 2 took RSS from 74 to
  // 69 MB (77 to 73 after 600 scrapes), and 1 no lower, with CPU per poll
  // unchanged (bench/scale.py): the polls' analytics pass a gate of half the
  // cores (CpuGate), so few threads allocate at once.
  mallopt(M_ARENA_MAX, 2);
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
