#include "daemon/ctl/report_commands.hpp"

#include "report/report_cli.hpp"

namespace nvmond {

ReportCommands::ReportCommands(CLI::App& app) {
  report_ = app.add_subcommand("report", "Render a run's report: one self-contained HTML page with SVG charts");
  report_->add_option("run", run_, "Directory holding run.json, or a run.json file")->required();
  report_->add_option("--html", report_html_, "Write the HTML report to FILE ('-' for stdout)");
  report_->footer(
      "Without --html, prints the run's summary line. Exit 0 ok, 1 the HTML file could not\n"
      "be written, 2 RUN is missing or not a valid run.json.");

  compare_ = app.add_subcommand("compare", "Compare runs: a summary table, and the same charts overlaid in HTML");
  compare_->add_option("runs", runs_, "Directories holding run.json, or run.json files")->required()->expected(2, -1);
  compare_->add_option("--html", compare_html_, "Also write the overlaid charts to FILE ('-' for stdout)");
  compare_->footer("Exit 0 ok, 1 the HTML file could not be written, 2 a RUN is missing or not a valid run.json.");
}

int ReportCommands::run(std::ostream& out, std::ostream& err) const {
  if (*report_) return report::report_command(run_, report_html_, out, err);
  return report::compare_command(runs_, compare_html_, out, err);
}

}  // namespace nvmond
