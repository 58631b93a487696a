#pragma once
// `nvmonctl report RUN [--html FILE]` and `nvmonctl compare RUN RUN… [--html FILE]`:
// registers both subcommands on the app; after parsing, run() executes the
// one that was selected. RUN: a run directory, a run.json file, or a run id
// in the daemon's store (services/run_source.hpp). Exit codes: report/report_cli.hpp.
#include <CLI/CLI.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace nvmond {

class ReportCommands {
 public:
  explicit ReportCommands(CLI::App& app);
  bool selected() const { return *report_ || *compare_; }
  // `global_config`: nvmonctl's own --config, given before the subcommand.
  int run(std::ostream& out, std::ostream& err, const std::string& global_config) const;

 private:
  CLI::App* report_;
  CLI::App* compare_;
  std::string run_;
  std::vector<std::string> runs_;
  std::optional<std::string> report_html_, compare_html_;
  std::string state_dir_, config_;
};

}  // namespace nvmond
