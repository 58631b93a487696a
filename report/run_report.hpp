#pragma once
// Whole pages: the report of one run and the comparison of several.
#include <string>
#include <vector>

#include "report/run_record.hpp"
#include "report/bases.hpp"

namespace nvmond::report {

// One self-contained HTML page (inline SVG and CSS, no scripts). Sections
// appear only when the run has their data. `bases`: what the tests that are
// not PTS tests rest on.
std::string render_run_report(const RunRecord& run, const TestBases& bases);

// The same charts overlaid, one colour per run, and the summary table.
std::string render_compare_report(const std::vector<RunRecord>& runs);

// The summary table for a terminal: one line per run.
std::string compare_table_text(const std::vector<RunRecord>& runs);

}  // namespace nvmond::report
