// nvmonctl: the operator's command-line companion to nvmond.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "core/build_info.hpp"
#include "daemon/config.hpp"

int main(int argc, char** argv) {
  CLI::App app{"nvmonctl: check nvmond configurations and run workloads"};
  app.set_version_flag("--version", nvmond::build::kVersion);
  app.require_subcommand(1);

  std::string check_path;
  auto* check = app.add_subcommand("check-config", "Validate an nvmond configuration file");
  check->add_option("file", check_path, "TOML configuration file")->required();

  CLI11_PARSE(app, argc, argv);

  if (*check) {
    try {
      nvmond::load_config(check_path);
      std::printf("%s: ok\n", check_path.c_str());
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
  }
  return 0;
}
