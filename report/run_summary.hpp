#pragma once
// The few numbers that sum a run up, shared by the report's header and
// `nvmonctl compare` (terminal table and HTML).
#include <string>
#include <vector>

#include "report/run_record.hpp"

namespace nvmond::report {

struct RunSummary {
  bool bandwidth = false;  // `level` is bytes/s, else IOPS
  double level = kAbsent;  // steady-state average, else mean of the test rounds
  bool steady = false;     // steady state reached
  // Latency of one element over the measurement window, as run.json's
  // `elements` has it: the steady state's (first) tracked element (IOPS:
  // 4KiB 0/100; latency: 4KiB 0/100; a sweep: its highest load), else the
  // only or the last element; its writes, else its reads. Never a mean over
  // elements.
  std::string latency_of;  // "4KiB 0/100 write"; empty when no element has latency
  double p99 = kAbsent;    // seconds
  double p999 = kAbsent;
  double temp_max_c = kAbsent;
  double throttled_s = kAbsent;
};

// The run's summary; a test of several measured stages (throughput: one
// sub-test per block size) is summed up by its last.
RunSummary summarize(const RunRecord& run);

// One summary per measured stage, each over its own steady state and
// measurement window (label: the sub-test's, "" for a run of one stage).
// `compare` prints one row each, so a throughput run's 1 MiB result is not
// hidden behind its 128 KiB one.
struct LabelledSummary {
  std::string label;
  RunSummary summary;
};
std::vector<LabelledSummary> summaries(const RunRecord& run);

// "Samsung PM9A3 (S4EW…)": what names a drive in tables and legends.
std::string drive_name(const RunRecord& run);

// The run's id as its header gives it; "–" before the store gave it one.
std::string run_id_text(const RunRecord& run);

}  // namespace nvmond::report
