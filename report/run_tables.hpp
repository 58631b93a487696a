#pragma once
// The report's text parts, built from one run: the header facts and the
// tables (IOPS matrix, per-element throughput and latency, QoS checks,
// throttle events, SMART before/after). nullopt/empty when the run lacks it.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/html_page.hpp"
#include "report/run_record.hpp"
#include "report/bases.hpp"

namespace nvmond::report {

using Facts = std::vector<std::pair<std::string, std::string>>;

// What the run's test rests on, for the report's header line: its PTS
// profile's specification ("PTS-E 2.0.x"), or for a test that is not a PTS
// test, what it rests on instead ("not a PTS test: the reviews' SLC-cache
// fill"); empty when the run recorded no profile and its test is a PTS test.
std::string test_basis_text(const RunRecord& run, const TestBases& bases);
// True when the run's test is one the PTS has (or is unknown to nvmond):
// one `bases` does not name.
bool is_pts_test(const RunRecord& run, const TestBases& bases);

Facts drive_facts(const RunRecord& run);
Facts test_facts(const RunRecord& run, const TestBases& bases);  // test, status, times, version, purge, preconditioning
// A steady state and the measurement window its values come from: the run's,
// or one sub-test's (then named first).
Facts steady_state_facts(const SteadyStateReport& s, const std::optional<MeasurementWindow>& window,
                         const std::string& subtest = "");
Facts wear_facts(const RunRecord& run);  // host writes, DWPD spent against the rating

// Block size (rows) × read/write mix (columns), IOPS in the cells.
std::optional<Table> iops_matrix(const RunRecord& run);
// One row per element and op: IOPS, throughput, latency mean … max.
std::optional<Table> element_table(const RunRecord& run);
std::optional<Table> qos_table(const RunRecord& run);
std::optional<Table> throttle_table(const RunRecord& run);
std::optional<Table> smart_table(const RunRecord& run);
// HIR: each wait state's and baseline's mean burst IOPS against the steady
// state's. XSR: each access group's throughput (mean, last rounds), peak
// mean and maximum response time, and how long access group 3 took to get
// back to access group 1's final throughput.
std::optional<Table> stage_table(const RunRecord& run);

}  // namespace nvmond::report
