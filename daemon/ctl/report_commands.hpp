#pragma once
// `nvmonctl report RUN [--html FILE]` and `nvmonctl compare RUN RUN… [--html FILE]`:
// registers both subcommands on the app; after parsing, run() executes the
// one that was selected. Exit codes: report/report_cli.hpp.
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
  int run(std::ostream& out, std::ostream& err) const;

 private:
  CLI::App* report_;
  CLI::App* compare_;
  std::string run_;
  std::vector<std::string> runs_;
  std::optional<std::string> report_html_, compare_html_;
};

}  // namespace nvmond
