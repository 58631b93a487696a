#pragma once
// Saving a drive's controller-initiated telemetry when it has new data.
//
// The drive saves internal state on its own (after an internal error, an
// assert, a firmware-detected anomaly) into the Telemetry
// Controller-Initiated log (08h), sets Data Available and steps the log's
// generation number. The poller reads the log's 512-byte header every poll;
// when it holds data of a generation not saved yet, and the drive's last
// attempt is at least `min_interval` of clock time ago, the same poll reads
// the whole log (data areas 1..data_area, fewer when that would be over the
// size caps) and the recorder saves it in the TelemetryArchive with one log
// line naming the file. A capture that keeps failing is logged when it
// starts failing or its reason changes, and counted every time. A drive
// without the log is told once, at info, by the poller, and never asked
// again.
//
// Split like the error log: the decision and the device reads on the
// poller's thread in the device phase (telemetry_capture_due,
// telemetry_capture_area), the files and the counts in the observer
// (TelemetryRecorder), whose mark() the poller uses for the next decision.
// A capture generation wraps at 256: a drive that saved exactly 256 times
// between two of nvmond's reads looks unchanged.
#include <cstdint>
#include <memory>
#include <optional>

#include "collectors/health.hpp"
#include "collectors/telemetry.hpp"
#include "core/clock.hpp"
#include "core/failure_state.hpp"
#include "core/result.hpp"
#include "drivelog/telemetry_archive.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

// What the recorder knows of a drive's captures.
struct TelemetryMark {
  std::optional<std::uint8_t> saved_generation;  // of the newest capture saved
  std::optional<WallTime> last_attempt;          // saved or failed, clock time
};

// The drive has data of a generation not saved yet, and `min_interval` has
// passed since the last attempt. A clock now behind the last attempt (it
// was stepped back) counts as passed: captures would otherwise stop until
// it caught up. `after_panic` (the drive's OCP error recovery log shows a
// panic this poller had not seen) skips the interval: a drive that panics
// is expected to leave its state in this log, and the next save replaces it.
bool telemetry_capture_due(const TelemetryHeader& header, const TelemetryMark& mark, WallTime now,
                           Duration min_interval, bool after_panic = false);
// Data areas 1..`wanted` when their bytes fit `max_bytes`, else the highest
// lower area that does; nullopt when data area 1 alone is larger.
std::optional<unsigned> telemetry_capture_area(const TelemetryHeader& header, unsigned wanted, std::uint64_t max_bytes);

// Thread-safety: one per drive, used by that drive's poller thread only;
// the archive is shared by every drive.
class TelemetryRecorder {
 public:
  explicit TelemetryRecorder(std::shared_ptr<TelemetryArchive> archive) : archive_(std::move(archive)) {}

  struct Update {
    std::optional<TelemetryArchive::Saved> saved;
    std::optional<Error> failure;  // the capture that failed: read or save
    // Whether `failure` is news (a first failure, or a new reason) or the
    // same failure again, which is counted and not logged.
    FailureState::Change failure_change = FailureState::Change::none;
    bool recovered = false;              // saved after failing
    std::optional<Error> restore_error;  // the archive could not be listed
  };
  // One successful poll; snap.telemetry is what the poller read (null: no
  // header this poll).
  Update update(const DriveInfo& info, const HealthSnapshot& snap);

  // nullopt until the drive's archive was looked at (its first poll with a
  // header): the poller captures nothing before.
  std::optional<TelemetryMark> mark() const { return mark_; }
  // The drive answered the header: its counts are exported.
  bool known() const { return mark_.has_value(); }
  std::uint64_t saved() const { return saved_; }
  std::uint64_t failed() const { return failed_; }

 private:
  std::shared_ptr<TelemetryArchive> archive_;
  std::string serial_;
  std::optional<TelemetryMark> mark_;
  std::uint64_t saved_ = 0;
  std::uint64_t failed_ = 0;
  FailureState failing_;
};

// nvmond_telemetry_captures_total{result="saved"|"failed"} of one drive.
void add_telemetry_captures(const TelemetryRecorder& recorder, const LabelPrefix& id, MetricSet& out);

}  // namespace nvmond
