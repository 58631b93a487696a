#pragma once
// A run as the report reads it: the run.json contract (schema "nvmond.run/1",
// written by pts/run_json.cpp; its fields are tabled for users in
// docs/pts.md) decoded into plain data. The header is the run model's
// RunHeader, decoded by its codec (runmodel/run_codec.hpp) as the store
// decodes it; the rest is run.json's own sections.
// Optional sections are std::optional or empty vectors; an absent number is
// NaN. Fields the writer adds beyond the contract are ignored, except
// `parameters`, which is shown whole.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"
#include "runmodel/round_record.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"
#include "runmodel/stage_phase.hpp"
#include "runmodel/pts_kind.hpp"
#include "runmodel/tracked_variable.hpp"

namespace nvmond::report {

inline constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

struct Latency {  // seconds
  double mean = kAbsent, min = kAbsent, max = kAbsent;
  double p50 = kAbsent, p90 = kAbsent, p99 = kAbsent, p999 = kAbsent, p9999 = kAbsent, p99999 = kAbsent;
};

struct OpStats {
  double ops = 0, bytes = 0, iops = kAbsent, bytes_per_second = kAbsent, errors = 0;
  Latency latency;
};

struct Ops {
  std::optional<OpStats> read, write;
};

struct Element {
  double bs = kAbsent;  // bytes
  double read_pct = kAbsent;
  double threads = kAbsent, queue_depth = kAbsent;
  std::string label;
};

struct MinMax {
  double min = kAbsent, max = kAbsent;
};

struct Round {
  int index = 0;  // execution order within the run: the per-round charts' x
  // The round as run.json names it: its stage and the round within that
  // stage (absent in runs written before rounds carried them).
  double stage = kAbsent, round = kAbsent;
  std::string phase;
  std::optional<Element> element;
  double start = kAbsent;  // seconds since the run's started_at
  double seconds = kAbsent;
  double iops = kAbsent, bytes_per_second = kAbsent;
  Ops ops;
  std::optional<MinMax> temperature_c;
  double throttled_seconds = kAbsent;
  double bytes_written = kAbsent;
};

// One tracked variable's check over the deciding window.
struct TrackedCheck {
  std::string variable, element;
  double window_from = kAbsent, window_to = kAbsent;
  double average = kAbsent;
  bool range_ok = false, slope_ok = false;
};

struct SteadyState {
  std::string variable;  // the first tracked one, as run.json spells it (tracked_variable() reads it)
  std::string element;   // its element's label
  bool reached = false;
  double round = kAbsent;
  double stage = kAbsent;                             // the stage whose rounds the window counts (absent in older runs)
  double window_from = kAbsent, window_to = kAbsent;  // rounds of that stage, inclusive
  double average = kAbsent, range = kAbsent, range_limit = kAbsent;
  double slope_excursion = kAbsent, slope_excursion_limit = kAbsent;
  double slope = kAbsent, intercept = kAbsent;
  std::vector<TrackedCheck> variables;  // every tracked variable (the IOPS test: three)
};

// The rounds every element value is computed over: the steady-state window,
// else the last rounds (absent in older runs).
struct MeasurementWindow {
  double stage = kAbsent, from = kAbsent, to = kAbsent;  // rounds of that stage, inclusive
  bool steady_state = false;
};

// One measured stage of several (throughput: one per block size), with its
// own steady state and measurement window.
struct Subtest {
  std::string label;
  std::optional<SteadyState> steady_state;
  std::optional<MeasurementWindow> measurement_window;
};

struct ElementResult {
  Element element;
  double iops = kAbsent, bytes_per_second = kAbsent;
  Ops ops;
};

struct Histogram {
  std::vector<double> bounds_s;
  std::vector<double> counts;  // counts[i]: latency in (bounds_s[i-1], bounds_s[i]]; an extra last one: above all
};

// One op's response times at one point of a demand-intensity sweep.
struct OpHistogram {
  double ops = kAbsent, iops = kAbsent, mean_s = kAbsent, max_s = kAbsent;
  std::vector<double> counts;  // per bounds_s bucket of its point, plus one above the last
};

// A sweep point's response-time histograms (PTS CBW: at the max, mid and
// min IOPS points), reads and writes apart.
struct PointHistogram {
  std::string point;  // "max" | "mid" | "min"
  std::string label;
  double threads = kAbsent, queue_depth = kAbsent, iops = kAbsent;
  std::vector<double> bounds_s;
  std::optional<OpHistogram> read, write;
  // "dedicated round" (a round of its own after the sweep, `seconds` long)
  // or "sweep window"; empty in runs from before either was recorded.
  std::string source;
  double seconds = kAbsent;
};

struct SlcPoint {
  double written_bytes, bytes_per_second;
};

struct Slc {
  double cache_bytes = kAbsent, before_bytes_per_second = kAbsent, after_bytes_per_second = kAbsent;
  std::vector<SlcPoint> curve;
};

struct QosCheck {
  std::string op;
  double bs = kAbsent, quantile = kAbsent, limit_s = kAbsent, measured_s = kAbsent;
  bool pass = false;
};

struct Qos {
  bool pass = false;
  std::vector<QosCheck> checks;
};

struct ThrottleEvent {
  double start = kAbsent, end = kAbsent;  // seconds since started_at; end NaN = still throttling
  std::string start_text, end_text;
  double peak_c = kAbsent;
  std::vector<std::string> sources;
};

struct Drive {
  std::optional<MinMax> temperature_c;
  std::vector<ThrottleEvent> throttle_events;
  // SMART fields as printed values, in the order of the file.
  std::vector<std::pair<std::string, std::string>> smart_before, smart_after;
  double host_bytes_written = kAbsent;
  double drive_writes = kAbsent;  // host bytes written / capacity, over the whole run
  double dwpd_spent = kAbsent;    // drive writes per day at the run's pace
  // The drive's OCP latency monitor over the run: I/Os it timed at or over
  // its threshold A, and the run's own I/Os over it (a range: the run's
  // histogram buckets). NaN without a monitor.
  double latency_threshold_s = kAbsent;
  double latency_drive_ios = kAbsent;
  double latency_host_ios_min = kAbsent, latency_host_ios_max = kAbsent;
};

struct TimelinePoint {
  double t, temperature_c, bytes_per_second;
};

struct Preconditioning {
  std::string kind;
  double bytes = kAbsent, seconds = kAbsent, rounds = kAbsent;
  // Workload-dependent preconditioning to steady state (CBW, DIRTH): its
  // verdict; none for SEQ WIPC and in runs from before it was recorded.
  std::optional<SteadyState> steady_state;
};

struct RunRecord {
  std::string source;  // the file it was read from
  // What ran, on what, since when (runmodel/run_codec.hpp decodes it, as
  // for the store). A comparison's nested run has none but its test.
  RunHeader header;
  std::optional<RunStatus> status;  // none in a comparison's nested run
  double duration_s = kAbsent;      // ended_at - started_at
  std::vector<Preconditioning> preconditioning;
  std::vector<Round> rounds;
  std::optional<SteadyState> steady_state;
  std::optional<MeasurementWindow> measurement_window;
  std::vector<Subtest> subtests;  // a test of several measured stages; the last is steady_state's
  std::vector<ElementResult> elements;
  std::optional<Histogram> histogram;
  std::vector<PointHistogram> response_time_histograms;  // absent in runs before the CBW sweep
  std::optional<Slc> slc;
  std::optional<Qos> qos;
  std::string compare_label;
  std::shared_ptr<const RunRecord> compare;  // the mixed test's reduced-range run
  std::optional<Drive> drive;
  std::vector<TimelinePoint> timeline;
};

// Decodes run.json text. Errors (reason "decode") name `source` and the JSON
// path of the offending field: "run.json: rounds[3].iops: expected a number",
// "run.json: rounds[3].iops: 1e999 is not a finite number (line 9, column 14)".
// A document without the fields every run has (schema, test, status,
// started_at) is not a run.
Result<RunRecord> parse_run(const std::string& json_text, const std::string& source);

// The run's test and a steady state's variable as values to branch on, read
// from their run.json text through the run model's tables: nullopt for a
// name no test or variable has (an older or a foreign run), which no branch
// takes.
inline std::optional<TestKind> test_kind(const RunRecord& run) { return test_kind_from_name(run.header.test); }
inline std::optional<TrackedVariable> tracked_variable(const std::string& text) {
  return tracked_variable_from_name(text);
}
// The same from a document already in memory (a run rebuilt from the store,
// one just written): no text between them. A non-finite number is absent, as
// it is once written (JSON has no such number).
Result<RunRecord> run_from_json(const nlohmann::json& run, const std::string& source);

// Reads RUN: a run.json file, or a directory holding one. Reasons: "absent"
// (no such file), "io", "decode".
Result<RunRecord> load_run(const std::string& run);

// A 10-hour WSAT's run.json is 0.5 MB; a month of 1-minute rounds is tens of MB.
inline constexpr std::size_t kMaxRunFileBytes = std::size_t{256} << 20;

// The text of the run file at `path`, which must be a regular file itself:
// a symbolic link, FIFO or device is refused without reading (or waiting on)
// it, and so is anything over `max_bytes`. Reasons "absent", "io"; messages
// name the path.
Result<std::string> read_run_file(const std::string& path, std::size_t max_bytes = kMaxRunFileBytes);

}  // namespace nvmond::report
