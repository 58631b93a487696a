#pragma once
// Which Error Information log entries are new, so each is logged and counted
// once per drive for its life, across daemon restarts.
//
// The drive numbers its errors (an entry's error count, rising, kept across
// power cycles) and SMART says how many there have been. The tracker keeps
// the highest count it has accounted for, per drive, in the history store
// (state key "error_log", beside the class totals), so:
//   - the poller reads the log only when SMART's count differs from it;
//   - an entry counts when its error count is above it; a restart reads the
//     stored value back and recounts nothing;
//   - a drive whose count went backwards (a reset, a wrap past FFFFFFFFh, a
//     different drive under the same serial) has its log taken as new;
//   - a drive seen for the first time counts what its log holds now.
// More new errors than the log keeps: only the entries the log still holds
// are counted (the drive dropped the others), never more.
//
// Thread-safety: one per drive, used by that drive's poller thread only.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/health.hpp"
#include "collectors/nvme/error_log.hpp"
#include "core/result.hpp"
#include "store/store.hpp"

namespace nvmond {

using ErrorClassCounts = std::array<std::uint64_t, kErrorStatusClassCount>;

// The stored state: "<last error count> <count of each class, in label order>".
std::string encode_error_log_state(std::uint64_t last_count, const ErrorClassCounts& counts);
// nullopt when the text is not one encode_error_log_state wrote.
std::optional<std::pair<std::uint64_t, ErrorClassCounts>> decode_error_log_state(const std::string& text);

// Whether a poll reads the log: only once the tracker knows what it has
// seen, and only when SMART's count moved away from it (up, or back after
// a reset).
bool should_read_error_log(u128 smart_count, std::optional<std::uint64_t> seen);

// The entries of the classes an operator is paged on (media, path): the
// drive's own faults, not the host's mistakes.
std::uint64_t media_and_path_errors(const ErrorClassCounts& counts);

class ErrorLogTracker {
 public:
  explicit ErrorLogTracker(Store& store) : store_(store) {}

  struct Update {
    std::vector<ErrorLogEntry> fresh;  // entries not counted before, oldest first
    bool reset = false;                // the drive's count went backwards: its log was taken as new
    std::optional<Error> error;        // the store failed (nothing was counted, or counted but not saved)
  };
  // One successful poll of the drive. snap.error_log is what the poller
  // read (nullopt: it did not read the log).
  Update update(const DriveKey& drive, const HealthSnapshot& snap);

  // The error count the poller compares SMART's with: it reads the log when
  // they differ. nullopt until the stored state has been read.
  std::optional<std::uint64_t> seen() const;
  const ErrorClassCounts& counts() const { return counts_; }

 private:
  std::optional<Error> restore(const DriveKey& drive);

  Store& store_;
  std::optional<DriveKey> drive_;            // whose state is loaded
  std::optional<std::uint64_t> last_count_;  // nullopt: the drive was never read
  ErrorClassCounts counts_{};
};

}  // namespace nvmond
