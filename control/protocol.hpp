#pragma once
// The control protocol between nvmond and nvmonctl, as types: one request
// struct per command the socket serves and one reply struct per answer.
// control/codec.hpp is its one JSON form; control/framing.hpp puts that on
// the wire (one JSON object per line each way).
//
// Versions: every request says which protocol it speaks ("protocol"; a
// request without it is version 1, as nvmonctl sent before the key existed)
// and every reply says which one it is in. A side that meets a version it
// does not speak refuses it with both versions named and which tool to
// upgrade; it never guesses at a shape it does not know.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/error_reason.hpp"
#include "runmodel/run_status.hpp"
#include "runmodel/run_view.hpp"
#include "runmodel/round_record.hpp"

namespace nvmond::control {

inline constexpr int kProtocolVersion = 1;  // the newest version this build speaks
inline constexpr int kOldestProtocol = 1;   // the oldest one it still answers

// The most rounds one `show` answers, so a run of 100,000 rounds costs the
// event loop no more than any other request.
inline constexpr std::int64_t kMaxShowRounds = 1000;

struct PingRequest {};
struct StatusRequest {};
struct ListRequest {};
struct StartRequest {
  std::string test;
  std::string target;
  std::map<std::string, std::string> params;
  std::string profile;  // the PTS profile by name; empty: the default (enterprise)
};
// The runs stop, pause and resume act on: one run by its id, or every run in
// progress only when the operator says "all". A request that names neither
// is refused, so a forgotten id never stops (for good) every soak on a host.
struct AllRuns {
  bool operator==(const AllRuns&) const = default;
};
using RunSelector = std::variant<std::int64_t, AllRuns>;

struct StopRequest {
  RunSelector which;
};
struct PauseRequest {
  RunSelector which;
};
struct ResumeRequest {
  RunSelector which;
};
struct HistoryRequest {
  std::optional<std::string> drive;  // serial
};
// One page of a run's rounds: from a round index, at most `limit` rounds
// (the daemon's bound when absent).
struct ShowRequest {
  std::int64_t run = 0;
  std::optional<std::int64_t> from;
  std::optional<std::int64_t> limit;
};

// A drive's Device Self-test: start one (short unless `extended`), abort
// the running one, or see its progress and the drive's newest results.
enum class SelfTestAction { start, abort, status };
struct SelfTestRequest {
  SelfTestAction action = SelfTestAction::status;
  std::string drive;  // serial
  bool extended = false;
};

using Request = std::variant<PingRequest, StatusRequest, ListRequest, StartRequest, StopRequest, PauseRequest,
                             ResumeRequest, HistoryRequest, ShowRequest, SelfTestRequest>;

// A drive as `status` shows it.
struct Drive {
  std::string serial, model, path;
  bool up = false;
  std::optional<double> composite_c, warning_c, percentage_used;  // percentage_used: a ratio
  std::vector<std::string> critical_warnings;                     // the bits set
  bool throttling = false;
  bool link_degraded = false;  // absent from a daemon older than the field: false
  // Error log entries of the media and path classes; null: unknown (or a
  // daemon older than the field).
  std::optional<std::uint64_t> media_path_errors = {};
  // The other conditions that page critical ("self_test_failed", ...);
  // absent from a daemon older than the field: none.
  std::vector<std::string> conditions = {};
};

// A run as status, history and show carry it: the run model's view, whose
// one JSON form is runmodel/run_codec.hpp's (times as Unix seconds; numbers
// a run does not have, or that are not finite, travel as null).
using Run = RunView;

// A [[soak]] schedule or an operator's run waiting for its drive.
struct Schedule {
  std::string name, test, target, schedule;
  ScheduleState state = ScheduleState::idle;
  std::string detail;
  std::optional<double> next_start;  // Unix seconds
  std::optional<std::int64_t> run;
};

struct Round {
  std::int64_t index = 0;
  std::string phase;
  std::optional<double> iops;
  // The round as the run store holds it, in the run model's codec.
  RoundRecord data;
};

struct PingReply {};
struct StatusReply {
  std::vector<Drive> drives;
  std::vector<Run> runs;
  std::vector<Schedule> queued;
};
struct ListReply {
  std::vector<Schedule> schedules;
};
// Started: `run`; queued behind its drive: `detail` says why.
struct StartReply {
  std::string name;
  bool queued = false;
  std::optional<std::int64_t> run;
  std::optional<std::string> detail;
};
// The runs stopped.
struct StopReply {
  std::vector<std::int64_t> runs;
};
// The runs paused or resumed.
struct RunsActedOn {
  std::vector<std::int64_t> runs;
};
struct HistoryReply {
  std::vector<Run> runs;
};
struct ShowReply {
  Run run;
  std::vector<Round> rounds;
  std::optional<std::int64_t> next;  // where the following page starts; none after the last
};
// One result of the drive's self-test log (06h), as the metrics name it.
struct SelfTestEntry {
  std::string kind;                     // "short", "extended", "vendor", "other"
  std::string result;                   // "passed", "aborted_command", ..., "failed_segments"
  std::optional<std::int64_t> segment;  // the first failed segment, with failed_segments
  std::int64_t power_on_hours = 0;      // when it completed or aborted
};
// What the daemon last read of the drive's self-test log (the poll after a
// start or abort shows its effect), and for start and abort what was done.
struct SelfTestReply {
  std::string drive;
  std::string done;                    // "started short test", "aborted", "" for status
  bool log_read = false;               // false: the log has not been read yet
  std::optional<std::string> running;  // the running test's kind
  std::optional<std::int64_t> completion_pct;
  std::vector<SelfTestEntry> results;  // newest first
};
struct ErrorReply {
  std::string error;
  // Why, for a program to act on (nvmonctl's exit code); `error` is the
  // sentence for a person and may be reworded. Absent: a refusal with no
  // reason more specific (and every reply of a daemon from before the key).
  std::optional<ErrorReason> reason = std::nullopt;
};

// Any reply the daemon sends: the answer to one request, or its refusal.
using AnyReply = std::variant<PingReply, StatusReply, ListReply, StartReply, StopReply, RunsActedOn, HistoryReply,
                              ShowReply, SelfTestReply, ErrorReply>;

}  // namespace nvmond::control
