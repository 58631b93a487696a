// nvmonctl: the operator's command-line companion to nvmond.
//
//   nvmonctl check-config FILE   validate a daemon configuration (exit 0 ok, 1 invalid)
//   nvmonctl test run TEST --target T --out DIR [--config FILE] [--profile P] [--set K=V]...
//                                run one PTS test (nvmonctl/pts_run.hpp)
//   nvmonctl run-job FILE        run the [[job]] tables of FILE now, in this process,
//                                through io_uring; one JSON summary line per job on
//                                stdout. Exit codes: see workloads/run_job_cli.hpp
//                                (0 ok, 1 refused/failed to start, 2 invalid file,
//                                3 I/O errors or verify mismatches).
//   nvmonctl report RUN [--html FILE]      a run's HTML report (nvmonctl/report_commands.hpp)
//                                (RUN: a directory, run.json, or a run id in the store)
//   nvmonctl compare RUN RUN… [--html FILE] runs side by side, table and overlaid charts
//   nvmonctl status|list|start|stop|pause|resume|history|show|selftest
//                                ask the running daemon over its control socket
//                                (nvmonctl/ctl_client.hpp: socket and exit codes).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "core/build_info.hpp"
#include "nvmonctl/report_commands.hpp"
#include "services/config.hpp"
#include "nvmonctl/ctl_client.hpp"
#include "nvmonctl/pts_run.hpp"
#include "pts/catalog.hpp"
#include "engines/registry.hpp"
#include "workloads/run_job_cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"nvmonctl: check nvmond configurations and run workloads"};
  app.set_version_flag("--version", nvmond::build::kVersion);
  app.require_subcommand(1);

  std::string check_path;
  auto* check = app.add_subcommand("check-config", "Validate an nvmond configuration file");
  check->add_option("file", check_path, "TOML configuration file")->required();
  check->footer(
      "Exit 0 valid, 1 invalid (each error at FILE:LINE:COLUMN).\n"
      "Example: nvmonctl check-config /etc/nvmond/nvmond.toml");

  std::string job_path;
  auto* run_job = app.add_subcommand("run-job", "Run the [[job]] tables of a job file now, through io_uring");
  run_job->footer(
      "[safety] allow_serials / allow_dirs must allow every write target. Prints one JSON\n"
      "summary per job on stdout. Exit 0 ok, 1 refused or failed to start, 2 invalid file,\n"
      "3 I/O errors or verify mismatches.\n"
      "Example: nvmonctl run-job /etc/nvmond/jobs.toml");
  run_job->add_option("file", job_path, "TOML job file ([[job]] tables and one [safety] table)")->required();

  nvmond::TestRunArgs test_args;
  auto* test = app.add_subcommand("test", "SNIA PTS tests as durable runs of rounds");
  test->require_subcommand(1);
  test->footer("Example: nvmonctl test run --help");
  auto* test_run = test->add_subcommand("run", "Run one test in the foreground and write DIR/run.json");
  // The test lists from the schemas, so that the help cannot miss a test.
  test_run->add_option("test", test_args.test, fmt::format("{}", fmt::join(nvmond::test_names(), ", ")))->required();
  test_run->add_option("--target", test_args.target, "block device, file, or sim:NAME ([[sim]] drive or profile)")
      ->required();
  test_run->add_option("--config", test_args.config, "TOML file with [safety] and [[sim]] tables");
  test_run->add_option("--profile", test_args.profile,
                       fmt::format("PTS profile: enterprise (PTS-E, default) or client (PTS-C: {})",
                                   fmt::join(nvmond::test_names(nvmond::PtsProfile::client), ", ")));
  test_run->add_option("--set", test_args.sets, "KEY=VALUE test parameter (repeatable)");
  test_run->add_option("--out", test_args.out, "output directory: run.json, runs.db")->required();
  test_run->add_option("--name", test_args.name, "the run's name in DIR/runs.db (default TEST@TARGET)");
  test_run->add_flag("!--no-resume", test_args.resume,
                     "close an unfinished run of this name as interrupted instead of resuming it");
  test_run->footer(
      "On a terminal one progress line is rewritten in place; piped, one line per round.\n"
      "Exit 0 completed, 1 refused or failed, 2 bad arguments or config.\n"
      "Example: nvmonctl test run wsat --target sim:dc0 --config /etc/nvmond/nvmond.toml "
      "--set rounds=2 --set round=1s --out wsat-dc0");

  const nvmond::ReportCommands report_commands(app);

  nvmond::ctl::Options ctl;
  int ctl_rc = 0;
  app.add_option("--socket", ctl.socket, "Control socket of the daemon (default /run/nvmond/control.sock)");
  app.add_option("--config", ctl.config, "Daemon configuration whose [control] socket to use");
  app.add_flag("--json", ctl.json, "Print the daemon's reply as JSON");
  // `nvmonctl status --json` as well as `nvmonctl --json status`: an option
  // the subcommand does not know falls through to these global ones.
  app.fallthrough();
  app.footer(
      "Socket commands exit 0 done, 1 the daemon refused (its error on stderr), 2 usage,\n"
      "3 the daemon cannot be reached (no socket, permission denied), 4 reply not understood.");
  nvmond::ctl::add_status(app, ctl, ctl_rc);
  nvmond::ctl::add_list(app, ctl, ctl_rc);
  nvmond::ctl::add_start(app, ctl, ctl_rc);
  nvmond::ctl::add_run_actions(app, ctl, ctl_rc);
  nvmond::ctl::add_history(app, ctl, ctl_rc);
  nvmond::ctl::add_show(app, ctl, ctl_rc);
  nvmond::ctl::add_selftest(app, ctl, ctl_rc);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : nvmond::ctl::kUsage;
  }
  if (*test_run) {
    test_args.live_progress = isatty(STDOUT_FILENO) == 1;
    const int rc = nvmond::test_run_command(test_args, std::cout, std::cerr);
    std::cout.flush();
    return rc;
  }

  if (report_commands.selected()) return report_commands.run(std::cout, std::cerr, ctl.config);

  if (*check) return nvmond::check_config_command(check_path);
  if (*run_job) {
    // Sim targets need a daemon's simulated drives; without them the registry
    // gives io_uring jobs their engine and refuses "sim" jobs, saying why.
    const int rc = nvmond::run_job_cli(job_path, std::cout, std::cerr, nvmond::make_engine_factory());
    std::cout.flush();
    return rc;
  }
  return ctl_rc;
}
