#pragma once
// `nvmonctl report` and `nvmonctl compare`, as functions of their arguments
// and output streams (the CLI11 wiring lives in nvmonctl/).
//
// RUN is what `load` accepts: load_run() takes a directory holding run.json
// (what `nvmonctl test run --out DIR` writes) or the path of a run.json file;
// nvmonctl's loader also takes a run id from the daemon's store. HTML goes to
// FILE, written atomically; "-" writes it to `out`.
//
// Exit codes: 0 done; 1 the HTML file could not be written; 2 a RUN is
// missing, unreadable or not a valid run.json (the message names the file
// and the field; for a store id, the database and the id).
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "report/run_record.hpp"
#include "report/bases.hpp"

namespace nvmond::report {

inline constexpr int kExitOk = 0;
inline constexpr int kExitWriteFailed = 1;
inline constexpr int kExitBadRun = 2;

// Turns one RUN argument into the run; an error's message is printed as is.
using RunLoader = std::function<Result<RunRecord>(const std::string& run)>;

// Renders DIR/run.json into DIR/report.html, for the writers of runs to call
// when a run ends (`nvmonctl test run --out DIR`, the daemon's state
// directory). nullopt on success. `bases`: as render_run_report takes them.
std::optional<Error> write_report_beside(const std::string& run_dir, const TestBases& bases);

// Without `html_path`: prints the run's summary line (the compare table) on `out`.
int report_command(const std::string& run, const std::optional<std::string>& html_path, std::ostream& out,
                   std::ostream& err, const TestBases& bases, const RunLoader& load = load_run);

// Prints the comparison table on `out`; with `html_path` also writes the page.
int compare_command(const std::vector<std::string>& runs, const std::optional<std::string>& html_path,
                    std::ostream& out, std::ostream& err, const RunLoader& load = load_run);

}  // namespace nvmond::report
