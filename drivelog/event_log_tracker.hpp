#pragma once
// Which Persistent Event log events are new, so each is logged and counted
// once per drive for its life, across daemon restarts, and where the thermal
// excursions go in the drive's throttle history.
//
// The log has no sequence numbers: events are kept oldest first, the oldest
// dropped when it is full, and its generation number changes when it is
// cleared. The tracker keeps, per drive in the history store (state key
// "event_log"), the generation and a fingerprint of the newest event it
// counted (a hash of the record's bytes, its timestamp included), so:
//   - events after that one in the same generation are new;
//   - a generation that changed, or a log that no longer holds that event
//     (it dropped it, and so everything older), makes every event new;
//   - a drive seen for the first time counts what its log holds now.
//
// A thermal excursion with a known clock time (a host-set timestamp, or one
// counted from the last reset in the power cycle the log was read in) joins
// the throttle history with source `drive_event_log`: into the closed event
// that covers its time when there is one, else as an event of its own at
// that instant. One timestamped after nvmond's previous poll of the drive
// and before this run's first (nvmond was not watching: stopped, or the
// drive was elsewhere) also gets source `nvmond_not_running`.
//
// Thread-safety: one per drive, used by that drive's poller thread only.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/health.hpp"
#include "collectors/nvme/persistent_event_log.hpp"
#include "core/clock.hpp"
#include "core/result.hpp"
#include "store/store.hpp"

namespace nvmond {

// Source labels of the throttle history events the log adds.
inline constexpr const char* kThrottleSourceEventLog = "drive_event_log";
inline constexpr const char* kThrottleSourceNotRunning = "nvmond_not_running";

// How often the poller reads the log at most, in clock time, unless the
// drive's thermal signals rose (should_read_event_log).
inline constexpr Duration kEventLogReadInterval = std::chrono::hours(1);

// What the poller remembers of its last read of the log.
struct EventLogReadMark {
  WallTime at{};
  SmartThermalCounters thermal;
  bool temperature_warning = false;
};
// Read at the first poll, then once kEventLogReadInterval has passed, or
// sooner when the drive reports new time over its temperature thresholds or
// raised the temperature critical warning: a thermal excursion the log may
// hold.
bool should_read_event_log(const std::optional<EventLogReadMark>& last, const HealthSnapshot& snap);
EventLogReadMark event_log_read_mark(const HealthSnapshot& snap);

using EventLogTypeCounts = std::array<std::uint64_t, kPelTypeLabelCount>;  // pel_type_labels() order

struct EventLogState {
  std::uint16_t generation = 0;
  std::uint64_t last_fingerprint = 0;  // 0: the log held no events
  EventLogTypeCounts counts{};
};
// "1 <generation> <fingerprint> <count of each type, in label order>".
std::string encode_event_log_state(const EventLogState& state);
// nullopt when the text is not one encode_event_log_state wrote.
std::optional<EventLogState> decode_event_log_state(const std::string& text);

// The clock time of `log.events[index]`, read at `read_at`; nullopt when its
// timestamp cannot be placed (counted from a reset before a later one).
std::optional<WallTime> pel_event_time(const PersistentEventLog& log, std::size_t index, WallTime read_at);

class EventLogTracker {
 public:
  explicit EventLogTracker(Store& store) : store_(store) {}

  struct Fresh {
    PelEvent event;
    std::optional<WallTime> time;
    bool while_not_running = false;
  };
  struct Update {
    std::vector<Fresh> fresh;                   // events not counted before, oldest first
    bool cleared = false;                       // the generation changed: the log was taken as new
    std::vector<ThermalEventRecord> throttles;  // written to the throttle history
    std::optional<Error> error;                 // the store failed: nothing was counted
  };
  // One successful poll of the drive; snap.event_log is what the poller
  // read (null: it did not read the log).
  Update update(const DriveInfo& info, const HealthSnapshot& snap);

  // Whether the drive's log has ever been read, in this run or one before
  // (its counts are then exported; a drive without the log has none).
  bool known() const { return drive_.has_value() && state_.has_value(); }
  const EventLogTypeCounts& counts() const { return state_ ? state_->counts : kNoCounts; }

 private:
  std::optional<Error> restore(const DriveKey& drive, WallTime first_poll);
  std::optional<ThermalEventRecord> throttle_of(const DriveInfo& info, const Fresh& fresh,
                                                std::vector<ThermalEventRecord>& pending);

  static constexpr EventLogTypeCounts kNoCounts{};
  Store& store_;
  std::optional<DriveKey> drive_;          // whose state is loaded
  std::optional<EventLogState> state_;     // nullopt: the drive's log was never read
  std::optional<WallTime> previous_poll_;  // the newest sample before this run
  WallTime first_poll_{};                  // this run's first poll of the drive
};

}  // namespace nvmond
