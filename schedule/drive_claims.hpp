#pragma once
// Who uses a drive now: the one place every starter of a drive-wide activity
// asks (a PTS run, a Device Self-test), and the one that tells an operator
// who holds it. A drive, by serial, has at most one holder; a second
// claim is refused with a sentence naming the first ("drive S is running an
// extended self-test (started at …)", "drive S is in use by run wsat-3").
// A claim is taken before the activity touches the drive and held until it
// ends, so the two orders (test then run, run then test) are refused alike.
//
// Thread-safety: every method may be called from any thread (a run claims
// its drive on its own thread once it has identified the target; self-tests
// claim on the event loop). A DriveClaim may outlive the registry.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/result.hpp"

namespace nvmond {

struct DriveUse {
  enum class Kind { run, job, self_test };
  Kind kind = Kind::run;
  // The run's name ("wsat-3"), the job's name, or the self-test's kind
  // ("short", "extended").
  std::string who;
  // When it started; a self-test seen running in the drive's log that no
  // one here started has none.
  std::optional<WallTime> since;
};

// "run wsat-3", "job fio-1", "an extended self-test (started at
// 2026-01-02T03:04:05Z)".
std::string holder_text(const DriveUse& use);
// "drive S is in use by run wsat-3", "drive S is running an extended
// self-test (started at 2026-01-02T03:04:05Z)".
std::string describe_use(const std::string& serial, const DriveUse& use);

class DriveClaims;

// Holds a drive until it is destroyed or released. Movable, not copyable.
class DriveClaim {
 public:
  DriveClaim() = default;
  DriveClaim(DriveClaim&& other) noexcept;
  DriveClaim& operator=(DriveClaim&& other) noexcept;
  DriveClaim(const DriveClaim&) = delete;
  DriveClaim& operator=(const DriveClaim&) = delete;
  ~DriveClaim() { release(); }

  void release();
  bool held() const { return token_ != 0; }
  const std::string& serial() const { return serial_; }
  // The holder's name changes (a run learns its id once its row is written).
  void rename(DriveUse use);

 private:
  friend class DriveClaims;
  struct Table;
  DriveClaim(std::weak_ptr<Table> table, std::string serial, std::uint64_t token)
      : table_(std::move(table)), serial_(std::move(serial)), token_(token) {}
  std::weak_ptr<Table> table_;
  std::string serial_;
  std::uint64_t token_ = 0;
};

class DriveClaims {
 public:
  DriveClaims();
  // Claims the drive for `use`; refused (ErrorReason::busy) with the
  // holder named when it is held.
  Result<DriveClaim> claim(const std::string& serial, DriveUse use);
  std::optional<DriveUse> holder(const std::string& serial) const;

 private:
  std::shared_ptr<DriveClaim::Table> table_;
};

struct DriveClaim::Table {
  std::mutex mu;
  std::uint64_t next = 1;
  std::map<std::string, std::pair<std::uint64_t, DriveUse>> by_serial;  // serial -> (token, use)
};

}  // namespace nvmond
