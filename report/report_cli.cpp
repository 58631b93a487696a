#include "report/report_cli.hpp"

#include <filesystem>
#include <ostream>

#include "core/atomic_file.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"

namespace nvmond::report {

namespace {

int write_html(const std::string& path, const std::string& html, std::ostream& out, std::ostream& err) {
  if (path == "-") {
    out << html;
    return kExitOk;
  }
  if (const auto e = write_file_atomically(path, html)) {
    err << "nvmonctl: cannot write the report: " << e->message << "\n";
    return kExitWriteFailed;
  }
  return kExitOk;
}

}  // namespace

std::optional<Error> write_report_beside(const std::string& run_dir, const TestBases& bases) {
  auto record = load_run((std::filesystem::path(run_dir) / "run.json").string());
  if (!record) return record.error();
  return write_file_atomically((std::filesystem::path(run_dir) / "report.html").string(),
                               render_run_report(*record, bases));
}

int report_command(const std::string& run, const std::optional<std::string>& html_path, std::ostream& out,
                   std::ostream& err, const TestBases& bases, const RunLoader& load) {
  auto record = load(run);
  if (!record) {
    err << "nvmonctl: " << record.error().message << "\n";
    return kExitBadRun;
  }
  if (!html_path) {
    out << compare_table_text({*record});
    return kExitOk;
  }
  return write_html(*html_path, render_run_report(*record, bases), out, err);
}

int compare_command(const std::vector<std::string>& runs, const std::optional<std::string>& html_path,
                    std::ostream& out, std::ostream& err, const RunLoader& load) {
  std::vector<RunRecord> records;
  for (const auto& run : runs) {
    auto record = load(run);
    if (!record) {
      err << "nvmonctl: " << record.error().message << "\n";
      return kExitBadRun;
    }
    records.push_back(std::move(*record));
  }
  // With the page on stdout the table would corrupt it; it goes to stderr then.
  (html_path && *html_path == "-" ? err : out) << compare_table_text(records);
  if (!html_path) return kExitOk;
  return write_html(*html_path, render_compare_report(records), out, err);
}

}  // namespace nvmond::report
