#pragma once
// A run as the report renders it: the typed run (runmodel/run.hpp), decoded
// from run.json by the run model's codec (runmodel/run_json.hpp) or handed
// over as it is, seen as one group of its rounds: the run itself, or the
// mixed test's reduced-range comparison run nested in it.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/io_op.hpp"
#include "core/result.hpp"
#include "runmodel/pts_kind.hpp"
#include "runmodel/round_record.hpp"
#include "runmodel/run.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_results.hpp"
#include "runmodel/run_status.hpp"
#include "runmodel/stage_phase.hpp"
#include "runmodel/tracked_variable.hpp"

namespace nvmond::report {

// A number the run does not have: drawn as a gap, printed as "—".
inline constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

inline const GroupResults kNoResults{};

struct RunRecord {
  std::string source;  // the file or the store row it was read from
  // What ran, on what, since when, with the conditions its results add. A
  // comparison's nested run: the parent's, under its own test and tested
  // range (0: unknown, in runs before nested runs carried it).
  RunHeader header;
  std::optional<RunStatus> status;         // none in a comparison's nested run
  std::shared_ptr<const Run> run;          // the whole run, shared with its nested run
  int group = 0;                           // RoundRecord::group of this run's rounds
  const GroupResults* results = nullptr;   // this group's, inside `run`
  std::vector<const RoundRecord*> rounds;  // this group's, in execution order
  double started = kAbsent;                // header.started_at, seconds since the epoch
  double duration_s = kAbsent;             // ended_at - started_at
  std::string compare_label;
  std::shared_ptr<const RunRecord> compare;  // the mixed test's reduced-range run

  // What the run did to the drive, its timeline and its declared-QoS
  // verdict: the whole run's, so a nested run has none of them.
  const DriveResults* drive() const;
  const QosResults* qos() const;
  const std::vector<TimelinePoint>& timeline() const;
  // Seconds since the run started: a round's start, an RFC 3339 time's
  // (NaN for an empty or malformed one).
  double offset(const RoundRecord& r) const;
  double offset(const std::string& rfc3339_time) const;
};

// The report's view of `run` (the conditions its results add go to the
// header, as run.json writes them); `source` names it in messages.
RunRecord record_of(Run run, const std::string& source);

// Whether a round names its element: rounds of runs written before rounds
// carried their element do not.
inline bool has_element(const RoundRecord& r) { return !r.label.empty() || r.bs > 0; }

// A round's op; nullptr when it did none of them.
inline const OpSummary* op_of(const std::array<std::optional<OpSummary>, kIoOpCount>& ops, IoOp op) {
  const auto& o = ops[static_cast<int>(op)];
  return o ? &*o : nullptr;
}
// The op a run is judged by: writes when it wrote, else reads.
inline const OpSummary* primary_op(const std::array<std::optional<OpSummary>, kIoOpCount>& ops) {
  const OpSummary* w = op_of(ops, IoOp::write);
  return w ? w : op_of(ops, IoOp::read);
}

// A steady state's deciding window's numbers; nullptr before it had one.
inline const WindowCheck* window_of(const SteadyStateReport& s) {
  return s.verdict.window ? &*s.verdict.window : nullptr;
}
// The first tracked element's label, the one reported at the top.
inline const std::string& tracked_element(const SteadyStateReport& s) { return s.tracked.front().element; }

// Decodes run.json text. Errors (reason "decode") name `source` and the JSON
// path of the offending field: "run.json: rounds[3].iops: expected a number",
// "run.json: rounds[3].iops: 1e999 is not a finite number (line 9, column 14)".
// A document without the fields every run has (schema, test, status,
// started_at) is not a run.
Result<RunRecord> parse_run(const std::string& json_text, const std::string& source);

// The run's test as a value to branch on: nullopt for a name no test has
// (a foreign run), which no branch takes.
inline std::optional<TestKind> test_kind(const RunRecord& run) { return test_kind_from_name(run.header.test); }

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
