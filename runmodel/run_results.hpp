#pragma once
// What a run's rounds amount to, as typed values: each measured stage's
// steady state, measurement window and element results, the
// preconditioning, the SLC curve, the response-time histograms, the QoS
// checks, and what the rounds did to the drive. pts/results.hpp computes
// them (analyse()); runmodel/run_json.hpp encodes them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/io_op.hpp"
#include "runmodel/round_record.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/steady_state_verdict.hpp"
#include "runmodel/tracked_variable.hpp"

namespace nvmond {

// The rounds a stage's reported values come from (PTS "measurement
// window"): a range of rounds of one stage.
struct MeasurementWindow {
  std::size_t stage = 0;
  std::size_t first = 0, last = 0;  // rounds of the stage, both inclusive
  bool steady_state = false;        // the steady-state window, else the last rounds
};

// A stage's steady state: its rule, how many rounds it judged, the verdict,
// and what it tracked (the first is the one reported at the top).
struct SteadyStateReport {
  struct Tracked {
    TrackedVariable variable = TrackedVariable::iops;
    std::string element;  // the element's label
  };
  std::size_t stage = 0;
  SteadyStateRule rule;
  std::size_t rounds_evaluated = 0;
  SteadyStateResult verdict;
  std::vector<Tracked> tracked;
};

// One element over the measurement window: rates averaged over its rounds,
// latency over the window's I/Os.
struct ElementResult {
  std::string label;
  std::uint32_t bs = 0;
  double read_pct = 0;
  unsigned threads = 0, queue_depth = 0;
  double iops = 0, bytes_per_second = 0;
  int rounds_averaged = 0;
  std::array<std::optional<OpSummary>, kIoOpCount> ops;
};

// One measured stage of several (a throughput sub-test, one per block size).
struct SubtestResult {
  std::string label;
  std::size_t stage = 0;
  std::optional<SteadyStateReport> steady_state;
  std::optional<MeasurementWindow> window;
  std::optional<std::vector<ElementResult>> elements;
};

// A preconditioning stage: what it wrote, for how long, in how many rounds,
// and its steady state where it runs to one (CBW, DIRTH, HIR).
struct PreconditioningResult {
  std::string kind;
  std::uint64_t bytes = 0;
  double seconds = 0;
  std::optional<std::size_t> rounds;  // none in runs written before it was recorded
  std::optional<SteadyStateReport> steady_state;
};

// One op's response times at one IOPS point, on histogram_bounds()' scale.
struct PointOpHistogram {
  std::uint64_t ops = 0;
  double iops = 0, mean_s = 0, max_s = 0;
  std::vector<std::uint64_t> counts;
};

// Latency counts per bucket: counts[i] is (bounds_s[i-1], bounds_s[i]], the
// last one above every bound. A run nvmond writes today uses
// histogram_bounds(); older documents carry their own.
struct LatencyBuckets {
  std::vector<double> bounds_s;
  std::vector<std::uint64_t> counts;
};

// The max, mid or min IOPS point of a demand-intensity sweep, from the
// sweep's window or from its dedicated round (which also has `seconds`).
struct PointHistogram {
  std::string point;  // max | mid | min
  std::string label;
  unsigned threads = 0, queue_depth = 0;
  double iops = 0;
  std::vector<double> bounds_s;  // the scale of every op's counts
  std::array<std::optional<PointOpHistogram>, kIoOpCount> ops;
  std::string source;  // "sweep window" | "dedicated round"
  std::optional<double> seconds;
};

// The SLC test: the write curve, and where throughput fell when it did.
struct SlcResult {
  struct Point {
    std::uint64_t written_bytes = 0;
    double bytes_per_second = 0;
  };
  double drop_fraction = 0;
  int drop_rounds = 0;
  std::vector<Point> curve;
  bool found = false;
  // Only when found.
  std::uint64_t cache_bytes = 0;
  double before_bytes_per_second = 0, after_bytes_per_second = 0;
};

// The run, or the comparison run: what its stages measured.
struct GroupResults {
  std::optional<SteadyStateReport> steady_state;  // the last measured stage's
  std::optional<MeasurementWindow> measurement_window;
  std::optional<std::vector<ElementResult>> elements;  // none until a stage has elements to report
  std::vector<SubtestResult> subtests;                 // reported when there are several
  std::vector<PreconditioningResult> preconditioning;
  std::optional<LatencyBuckets> histogram;  // both ops, every round
  std::optional<std::vector<PointHistogram>> response_time_histograms;
  std::optional<SlcResult> slc;
};

// The mixed test's comparison run: the same drive, a share of it written.
struct CompareResults {
  std::string label;
  std::string test;
  std::optional<std::uint64_t> tested_range_bytes;
  GroupResults run;
};

struct QosCheckResult {
  IoOp op = IoOp::read;
  std::uint32_t bs = 0;
  double quantile = 0, limit_s = 0;
  std::optional<double> measured_s;  // none: the window measured no such I/O
  bool pass = false;
};

struct QosResults {
  bool pass = false;
  std::vector<QosCheckResult> checks;
};

// Throttling at round granularity: consecutive throttled rounds are one event.
struct RunThrottleEvent {
  std::string start, end;  // RFC 3339
  double peak_c = 0;
  double throttled_seconds = 0;
  // What told of the throttling: "throttle" (the rounds' own throttled
  // time); older documents named the drive's signals ("tmt1").
  std::vector<std::string> sources;
};

// The drive's latency monitor count over the run beside the run's own.
struct LatencyMonitorDelta {
  double threshold_s = 0;
  std::uint64_t drive_ios = 0;
  std::uint64_t host_ios_min = 0, host_ios_max = 0;
};

// What happened to the drive: temperatures, throttling, bytes written and
// the drive writes per day they amount to.
struct DriveResults {
  std::optional<std::pair<double, double>> temperature_c;  // min, max
  std::vector<RunThrottleEvent> throttle_events;
  double host_bytes_written = 0;
  std::optional<LatencyMonitorDelta> latency_monitor;
  std::optional<double> drive_writes, dwpd_spent;  // none for an unknown capacity
};

struct TimelinePoint {
  double t = 0;  // seconds since the run started
  double bytes_per_second = 0;
  std::optional<double> temperature_c;
};

struct RunResults {
  // What the rounds show beyond the header's conditions (preconditioning
  // that gave up before steady state).
  std::vector<RunCondition> conditions;
  GroupResults main;
  std::optional<CompareResults> compare;
  std::optional<QosResults> qos;
  // Always, for a run nvmond analysed; none in a run.json from before runs
  // recorded the drive.
  std::optional<DriveResults> drive;
  std::vector<TimelinePoint> timeline;
};

}  // namespace nvmond
