#include "nvmonctl/report_commands.hpp"

#include "services/run_source.hpp"
#include "pts/catalog.hpp"
#include "report/report_cli.hpp"

namespace nvmond {

namespace {

constexpr const char* kRunHelp = "Run directory, run.json file, or run id in the daemon's store";

void add_store_options(CLI::App& cmd, std::string& state_dir, std::string& config) {
  cmd.add_option("--state-dir", state_dir, "The daemon's state directory, whose database holds run ids");
  cmd.add_option("--config", config, "Daemon configuration whose [daemon] state_dir to read run ids from");
}

}  // namespace

ReportCommands::ReportCommands(CLI::App& app) {
  report_ = app.add_subcommand("report", "Render a run's report: one self-contained HTML page with SVG charts");
  report_->add_option("run", run_, kRunHelp)->required();
  report_->add_option("--html", report_html_, "Write the HTML report to FILE ('-' for stdout)");
  add_store_options(*report_, state_dir_, config_);
  report_->footer(
      "A RUN that is no existing path and is a number is a run id, read (read-only, the daemon\n"
      "keeps writing) from STATE_DIR/runs.db, else STATE_DIR/nvmond.db; STATE_DIR is --state-dir,\n"
      "else --config's [daemon] state_dir, else /var/lib/nvmond ($STATE_DIRECTORY).\n"
      "Without --html, prints the run's summary line. Exit 0 ok, 1 the HTML file could not\n"
      "be written, 2 RUN is missing, unknown or not a valid run.\n"
      "Example: nvmonctl report 12 --config /etc/nvmond/nvmond.toml --html run-12.html");

  compare_ = app.add_subcommand("compare", "Compare runs: a summary table, and the same charts overlaid in HTML");
  compare_->add_option("runs", runs_, kRunHelp)->required()->expected(2, -1);
  compare_->add_option("--html", compare_html_, "Also write the overlaid charts to FILE ('-' for stdout)");
  add_store_options(*compare_, state_dir_, config_);
  compare_->footer(
      "RUN as for `nvmonctl report`. Exit 0 ok, 1 the HTML file could not be written, 2 a RUN\n"
      "is missing, unknown or not a valid run.\n"
      "Example: nvmonctl compare 12 13 --config /etc/nvmond/nvmond.toml");
}

int ReportCommands::run(std::ostream& out, std::ostream& err, const std::string& global_config) const {
  const RunSource source(state_dir_, config_.empty() ? global_config : config_);
  const report::RunLoader load = [&source](const std::string& run) { return source.load(run); };
  if (*report_) return report::report_command(run_, report_html_, out, err, test_bases(), load);
  return report::compare_command(runs_, compare_html_, out, err, load);
}

}  // namespace nvmond
