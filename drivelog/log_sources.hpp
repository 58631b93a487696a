#pragma once
// The log pages a poll reads, one LogSource row each: what node_exporter
// calls a collector, for one page. A row knows its name, how a drive that
// lacks the page answers, when it is due, how it reads from a DeviceReader
// into the HealthSnapshot, what it forgets when another drive identifies at
// the path, and its nvme_* families. The poller's worker thread walks the
// table in order every poll (polling/poll_worker); a new page is a new row.
//
// Thread-safety: the table is immutable; LogMarks belong to one worker.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "collectors/device.hpp"
#include "core/clock.hpp"
#include "drivelog/event_log_tracker.hpp"
#include "drivelog/self_test_pacing.hpp"
#include "drivelog/telemetry_capture.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

// What the telemetry row may capture ([telemetry] of the configuration).
struct TelemetryCapturePolicy {
  bool capture = true;  // off: the log is never read
  Duration min_interval = std::chrono::hours(1);
  unsigned data_area = 3;
  std::uint64_t max_capture_bytes = std::uint64_t{256} << 20;
};

// What the rows remember between polls of one drive: their pacing marks,
// what the observer last reported back, the self-test log carried between
// reads.
struct LogMarks {
  LogMarks(Duration poll_interval, TelemetryCapturePolicy policy)
      : telemetry(policy), self_test_pacing(poll_interval) {}
  TelemetryCapturePolicy telemetry;
  // The error count the history has accounted for (ErrorLogTracker::seen),
  // from the observer.
  std::optional<std::uint64_t> error_log_seen;
  std::optional<EventLogReadMark> event_log;  // the last attempt to read it
  SelfTestPacing self_test_pacing;
  std::optional<SelfTestLog> self_test;         // the last read, carried between reads
  std::optional<TelemetryMark> telemetry_mark;  // from the observer, for the next poll
  // The OCP panic (ID, count) of the last poll that read the C1 log.
  std::optional<std::pair<std::uint64_t, std::uint8_t>> ocp_panic;
  // When a panic last made a capture due: a drive panicking in a loop gets
  // one such capture per min_interval, not one per poll.
  std::optional<WallTime> panic_capture_at;
};

// One poll's reading of one drive.
struct LogRead {
  DeviceReader& device;
  const DriveInfo& info;
  const Clock& clock;
  LogMarks& marks;
};

struct LogSource {
  // How the poll takes a failed read.
  enum class Need : std::uint8_t {
    // The poll fails with it (SMART).
    required,
    // A warning when it starts failing or its reason changes; the poll goes on.
    optional,
    // As optional, but "unsupported" is logged once, at info, and the drive
    // is not asked again until another one identifies at the path.
    learned,
    // A debug line: a feature or a sysfs file many drives lack.
    best_effort,
  };
  // "OCP C0 log": what log lines call it ("no <name>: ...", "<name> read again").
  std::string_view name;
  Need need = Need::optional;
  // Whether this poll reads it; null: every poll.
  bool (*due)(LogMarks&, const HealthSnapshot&) = nullptr;
  // Reads into the snapshot; the device's error when it failed.
  std::optional<Error> (*read)(const LogRead&, HealthSnapshot&) = nullptr;
  // What a poll that does not read it still reports (the last read carried);
  // null: nothing.
  void (*carry)(const LogMarks&, HealthSnapshot&) = nullptr;
  // Forgets what it knew of the drive when another identifies; null: nothing.
  void (*reset)(LogMarks&) = nullptr;
  // Its nvme_* families from a successful poll's snapshot; null: none.
  void (*add_exports)(const HealthSnapshot&, const LabelPrefix&, MetricSet&) = nullptr;
};

// Every page a poll reads, in the order it reads them.
std::span<const LogSource> log_sources();

}  // namespace nvmond
