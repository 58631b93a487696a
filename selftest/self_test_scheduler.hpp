#pragma once
// Starts the Device Self-tests of the [[selftest]] schedules. Each tick
// (the daemon's soak tick, once a second) looks at every schedule's drives:
// a drive whose next start is due gets its test unless a soak run or job
// holds it in the DriveClaims, it is at or above its warning temperature (WCTEMP), it is down or
// has no self-test support, or `max_concurrent` drives are testing already
// (running in their log, or started and not yet seen running). A deferred
// start is logged once per reason and tried again at the next tick; one the
// drive refused, a minute later.
//
// A start claims the drive (schedule/drive_claims.hpp) before the command
// is sent and holds it until the drive's log shows the test over, so a PTS
// run is refused on a drive in the middle of a self-test as a self-test is
// refused on a drive a run uses; a test seen running in the log that no one
// here started is claimed too. The command goes to the drive's poll thread
// and its answer comes back later, on the loop: a hung drive holds only its
// own start.
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
#include "collectors/drive_summary.hpp"
#include "schedule/drive_claims.hpp"
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
  std::string who;  // "schedule" or "nvmonctl"
  WallTime started{};
  std::string outcome;  // the result's name once the log shows it; "" until then
  bool seen_running = false;
  bool operator==(const SelfTestRecord&) const = default;
};
std::string encode_self_test_record(const SelfTestRecord& r);
std::optional<SelfTestRecord> decode_self_test_record(const std::string& text);
// The store key of a schedule's (or nvmonctl's) starts on a drive.
std::string self_test_state_key(const std::string& who);

struct SelfTestHooks {
  std::function<std::vector<DriveSummary>()> drives;
  // Sends the start; `done` gets the drive's answer, on the loop, maybe later.
  std::function<void(const std::string& path, SelfTestKind kind, std::function<void(std::optional<Error>)> done)> start;
};

class SelfTestScheduler {
 public:
  // `claims`: who uses each drive, asked before a start and claimed by it
  // (none: no claims are taken and no other user is seen).
  SelfTestScheduler(std::vector<SelfTestPlan> plans, std::int64_t max_concurrent, Store& store, SelfTestHooks hooks,
                    DriveClaims* claims = nullptr);
  void tick(WallTime now);
  // The claim an operator's start takes before its command is sent.
  Result<DriveClaim> claim(const DriveSummary& drive, SelfTestKind kind, WallTime now);
  // A start nvmonctl made: remembered like a schedule's, and counted; it
  // holds the drive with `claim` until it ends.
  void started_by_operator(const DriveSummary& drive, SelfTestKind kind, WallTime now, DriveClaim claim = {});
  // The drives' claims of the tests in progress, handed to the scheduler a
  // reload makes (adopt()), so no run slips in between.
  std::map<std::string, DriveClaim> take_claims() { return std::move(claims_); }
  void adopt(std::map<std::string, DriveClaim> claims);

 private:
  struct Slot {
    std::optional<SelfTestRecord> last;  // loaded from the store on first sight
    bool loaded = false;
    std::string deferred;    // why the last due start waited ("" none)
    WallTime retry_after{};  // after the drive refused a start
    bool starting = false;   // sent, its answer not back yet
  };
  void follow_claims(const std::vector<DriveSummary>& drives, WallTime now);
  void on_started(const std::string& plan, const DriveSummary& drive, SelfTestKind kind, WallTime now, DriveClaim claim,
                  const std::optional<Error>& failed);
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
  DriveClaims* registry_ = nullptr;
  std::map<std::string, DriveClaim> claims_;  // by serial: the tests in progress
  // Answers from the drives may come after this scheduler is gone (a reload).
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace nvmond
