#pragma once
// A run's header: what ran, on what, since when, and how it ended, as one
// typed value. The executor edits it as the run goes; the store keeps it in
// its blob column and run.json starts with it (runmodel/run_codec.hpp is
// the only code that turns it into JSON and back).
//
// The run's status is not here: the store's status column is its one place,
// and run.json takes it from there (or from the run's outcome).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runmodel/plan_record.hpp"
#include "runmodel/pts_profile.hpp"

namespace nvmond {

// The drive under test as the run found it, and as a PTS target reports
// itself before any run. Absent ratings and limits are unknown.
struct TargetRecord {
  std::string path;  // a run's: as the operator gave it; a target's: its own
  std::string serial, model, firmware;
  std::uint64_t capacity_bytes = 0;
  std::uint64_t tested_range_bytes = 0;  // 0 until a plan decides it
  std::optional<double> rated_dwpd;
  std::optional<double> rated_endurance_bytes;
  std::optional<double> warning_temp_c, critical_temp_c;
  // The smallest I/O the target takes (a block device's logical block
  // size); 0: unknown (a file, a simulated drive, a run recorded before it
  // was kept).
  std::uint32_t logical_block_bytes = 0;
  bool operator==(const TargetRecord&) const = default;
};

// The drive's health log at the start or the end of the run.
struct SmartRecord {
  std::string time;  // RFC 3339
  std::optional<double> temperature_c;
  std::optional<double> data_units_written;  // 512 000-byte units
  std::optional<int> percentage_used;
  std::optional<std::uint32_t> thermal_mgmt_t1_transitions;  // lifetime TMT1 transitions
  // The drive's OCP latency monitor (C3h): its lowest threshold (A) and the
  // reads and writes it timed at or above it since it was enabled.
  std::optional<double> latency_monitor_threshold_s;
  std::optional<std::uint64_t> latency_monitor_reads;
  std::optional<std::uint64_t> latency_monitor_writes;
  bool operator==(const SmartRecord&) const = default;
};

// How a target was purged: what the target's purge() did, and what the run
// records of it.
struct PurgeRecord {
  std::string method;  // format | sanitize | deallocate | zero-fill | none
  std::string detail;
  bool operator==(const PurgeRecord&) const = default;
};

// A purge between stages, before stage `stage`'s first round.
struct StagePurge {
  std::size_t stage = 0;
  PurgeRecord purge;
  bool operator==(const StagePurge&) const = default;
};

// A way the run departed from what the specification requires, which makes
// its results non-conformant: "purge-fallback", "write-cache-enabled",
// "write-cache-disabled", "write-cache-unknown" (pts/run_conditions.hpp).
struct RunCondition {
  std::string name;
  std::string detail;
  bool operator==(const RunCondition&) const = default;
};

// The drive's volatile write cache over the run: as the run found it, as the
// test ran with it, and whether the run put it back afterwards. A run that
// changed it restores `found` when it ends, is suspended or is found
// interrupted; a resumed run sets `during` again (a power cycle resets it).
struct WriteCacheRecord {
  std::optional<bool> found;                   // nullopt: the target cannot tell
  std::optional<bool> during;                  // nullopt: unknown
  std::string detail;                          // how it was read and set, or why it could not be
  std::optional<std::string> restored_at;      // RFC 3339, target time
  std::optional<std::string> restore_failure;  // the device's answer when putting it back failed
  bool operator==(const WriteCacheRecord&) const = default;
};

struct RunHeader {
  static constexpr const char* kSchema = "nvmond.run/1";
  std::string schema = kSchema;
  std::int64_t run_id = 0;  // 0 until the store has given the run an id
  std::string test;
  // The PTS profile the test ran under; nullopt in runs recorded before
  // nvmond had profiles, which all ran PTS-E's conditions.
  std::optional<PtsProfile> profile;
  std::string started_at;  // RFC 3339, target time
  std::int64_t started_ns = 0;
  std::string nvmond_version;
  bool simulated_clock = false;  // times are the simulated drive's
  TargetRecord target;
  std::map<std::string, std::string> parameters;  // every effective parameter
  std::optional<SmartRecord> smart_before, smart_after;
  std::optional<PurgeRecord> purge;  // before the first stage
  std::vector<StagePurge> purges;
  std::vector<RunCondition> conditions;
  std::optional<WriteCacheRecord> write_cache;
  int resumed = 0;         // times the run was resumed
  bool resumable = false;  // closed by a stopping daemon: the next one resumes it
  std::optional<std::string> failure;
  std::optional<std::string> ended_at;  // RFC 3339, once the run is over
  // The plan's facts its results are analysed from: kept in the store's
  // blob, not in run.json; none in runs stored before they were kept.
  std::optional<PlanRecord> plan;
  bool operator==(const RunHeader&) const = default;
};

// Adds `c` unless the header has it already: two purges that fall back the
// same way are one condition.
inline void add_condition(RunHeader& header, std::optional<RunCondition> c) {
  if (!c) return;
  for (const auto& have : header.conditions) {
    if (have == *c) return;
  }
  header.conditions.push_back(std::move(*c));
}

}  // namespace nvmond
