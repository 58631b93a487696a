#pragma once
// Starts the Device Self-tests of the [[selftest]] schedules. Each tick
// (the daemon's soak tick, once a second) looks at every schedule's drives:
// a drive whose next start is due gets its test unless a soak run or job
// uses it, it is at or above its warning temperature (WCTEMP), it is down or
// has no self-test support, or `max_concurrent` drives are testing already
// (running in their log, or started and not yet seen running). A deferred
// start is logged once per reason and tried again at the next tick; one the
// drive refused, a minute later.
//
// Every start is remembered in the store as the drive's state
// "selftest:<schedule>" (kind, who, start time, and the outcome once the log
// shows it), so a restarted daemon plans from the last start instead of
// testing again at once. nvmonctl's starts are remembered as
// "selftest:nvmonctl".
//
// Thread-safety: event-loop thread only.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/device.hpp"
#include "core/clock.hpp"
#include "daemon/drive_summary.hpp"
#include "schedule/schedule.hpp"
#include "store/store.hpp"

namespace nvmond {

struct SelfTestPlan {
  std::string name;
  std::vector<std::string> drives;  // serials
  SelfTestKind kind = SelfTestKind::short_test;
  Schedule schedule;
};

// One start, as the store keeps it.
struct SelfTestRecord {
  SelfTestKind kind = SelfTestKind::short_test;
  std::string who;          // "schedule" or "nvmonctl"
  WallTime started{};
  std::string outcome;      // the result's name once the log shows it; "" until then
  bool seen_running = false;
  bool operator==(const SelfTestRecord&) const = default;
};
std::string encode_self_test_record(const SelfTestRecord& r);
std::optional<SelfTestRecord> decode_self_test_record(const std::string& text);
// The store key of a schedule's (or nvmonctl's) starts on a drive.
std::string self_test_state_key(const std::string& who);

struct SelfTestHooks {
  std::function<std::vector<DriveSummary>()> drives;
  std::function<std::optional<std::string>(const std::string& serial)> drive_user;
  std::function<std::optional<Error>(const std::string& path, SelfTestKind kind)> start;
};

class SelfTestScheduler {
 public:
  SelfTestScheduler(std::vector<SelfTestPlan> plans, std::int64_t max_concurrent, Store& store, SelfTestHooks hooks);
  void tick(WallTime now);
  // A start nvmonctl made: remembered like a schedule's, and counted.
  void started_by_operator(const DriveSummary& drive, SelfTestKind kind, WallTime now);

 private:
  struct Slot {
    std::optional<SelfTestRecord> last;  // loaded from the store on first sight
    bool loaded = false;
    std::string deferred;                // why the last due start waited ("" none)
    WallTime retry_after{};              // after the drive refused a start
  };
  Slot& slot(const std::string& plan, const DriveSummary& drive);
  void follow_outcome(const std::string& key, const DriveSummary& drive, SelfTestRecord& record, WallTime now);
  void remember(const DriveSummary& drive, const std::string& key, const SelfTestRecord& record);
  std::size_t testing(const std::vector<DriveSummary>& drives, WallTime now) const;
  std::optional<std::string> problem(const DriveSummary& d) const;

  std::vector<SelfTestPlan> plans_;
  std::size_t max_concurrent_;
  Store& store_;
  SelfTestHooks hooks_;
  // By (store key, serial).
  std::map<std::pair<std::string, std::string>, Slot> slots_;
};

}  // namespace nvmond
