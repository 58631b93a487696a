#pragma once
// Decides when [[soak]] runs (and runs an operator asked for) start, pause
// and resume. Pure: no threads, no sleeps; the daemon calls tick() on a
// timer with the time and what it knows of each drive, tests call it with a
// manual clock.
//
// Rules:
// - a start is asynchronous (SoakControl::start): the entry is `opening`
//   until the run's thread reports its id or its refusal, and its drive
//   counts as busy meanwhile;
// - at most one run per drive at a time (every PTS test writes the drive),
//   and none on a drive a [[job]] or a self-test holds (DriveClaims): runs
//   that are due while their drive is busy queue in the order they became
//   due. The runner takes the drive's claim only once it has opened the
//   target, so the runs still opening are kept busy here;
// - a run does not start while the drive's composite temperature is above
//   its warning threshold (WCTEMP) minus `thermal_margin_c`; it waits;
// - with on_throttle = pause, a run is paused while its drive throttles and
//   resumed when it stops; with record it keeps going (the throttling is in
//   the drive's events);
// - configure() on reload keeps the state (and the run) of every entry whose
//   normalized content did not change.
// - `once` means once: before a once-soak starts, the run store is asked for
//   the newest run of its name (SoakControl::last_run). When that run was
//   started from the same definition (definition(): test, profile, target,
//   params) and has ended (completed, failed, or stopped by an operator),
//   the soak does not run again: not after a restart, a reload or an
//   upgrade. An unfinished one (running, or closed resumable by a stopping
//   daemon) starts, which resumes it. A changed definition runs anew;
//   run_again() (nvmonctl start NAME) runs it again whatever the store says.
//   A run recorded before definitions were kept counts as the same
//   definition when its test and target are the same.
//
// Thread-safety: none; one thread (the daemon's io_context) owns it.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/drive_summary.hpp"
#include "core/config_reader.hpp"
#include "runmodel/run_status.hpp"
#include "schedule/drive_claims.hpp"
#include "schedule/schedule.hpp"
#include "schedule/soak_control.hpp"

namespace nvmond {

enum class OnThrottle { pause, record };

struct SoakTiming {
  Schedule schedule;
  Duration randomized_delay{};
  double thermal_margin_c = 5.0;
  OnThrottle on_throttle = OnThrottle::record;
};

struct SoakEntry {
  SoakRequest request;
  SoakTiming timing;
  // Everything that defines the entry, in a canonical form: equal strings
  // mean an unchanged [[soak]] across a reload.
  std::string normalized() const;
  // A stable fingerprint of what the soak does (test, profile, target,
  // params; not its name or timing): 16 hex digits of FNV-1a 64 over their
  // canonical text. Stored with each run of the soak.
  std::string definition() const;
};

// The scheduling keys of a [[soak]] table (schedule, randomized_delay,
// thermal_margin, on_throttle), read beside its name/test/target/params.
SoakTiming read_soak_timing(TableReader& t);

// The drive behind a soak target, as its poller last published it; nullopt
// for a target on no polled drive (a file). Asked per tick.
using DriveLookup = std::function<std::optional<DriveSummary>(const std::string& target)>;
// Uniform in [0, max): the randomized delay's draw (injected for tests).
using Jitter = std::function<Duration(Duration max)>;

struct ScheduleView {
  std::string name, test, target, schedule;
  ScheduleState state = ScheduleState::idle;
  std::string detail;  // why it waits, or the error of its last start
  std::optional<WallTime> next_start;
  std::optional<std::int64_t> run;
  std::uint64_t failed_starts = 0;  // starts the run store or target refused, since configured
};

class SoakScheduler {
 public:
  // `claims`: who else uses each drive (the daemon's); none: only this
  // scheduler's own runs keep a drive busy.
  SoakScheduler(SoakControl& control, Jitter jitter, const DriveClaims* claims = nullptr);

  // A scheduled soak whose start failed (the run store cannot be opened yet,
  // the target is refused or absent) is tried again after this, doubling up
  // to an hour, or at its next planned start if that comes first: a cause
  // that goes away (a store that recovers, a drive put back) must not leave a
  // `once` soak idle until the next restart.
  static constexpr Duration kFirstRetry = std::chrono::seconds(30);
  static constexpr Duration kMaxRetry = std::chrono::hours(1);

  // Replaces the [[soak]] entries; unchanged ones keep their state and run,
  // changed or removed ones have their run stopped.
  void configure(const std::vector<SoakEntry>& entries, WallTime now);
  // An operator's run: due now, queued like the others. Returns its name.
  std::string request(SoakRequest request, WallTime now);
  // An operator asked for the [[soak]] `name` to run now (`nvmonctl start
  // NAME`): a finished once-soak runs again. Why it cannot, if it cannot (no
  // such [[soak]], or its run is in progress).
  std::optional<std::string> run_again(const std::string& name, WallTime now);
  // An operator paused or resumed a run: the throttle rule leaves it alone.
  void operator_paused(std::int64_t run, bool paused);

  void tick(WallTime now, const DriveLookup& drives);
  std::vector<ScheduleView> list() const;

 private:
  struct Slot {
    SoakEntry entry;
    bool manual = false;
    std::optional<WallTime> last_start;
    std::optional<WallTime> due;  // planned start incl. randomized delay
    bool queued = false;          // due and waiting for its drive
    std::optional<std::int64_t> run;
    std::uint64_t opening = 0;  // the start in flight (its ticket); 0: none
    std::string drive;          // serial (or target) of the current (or opening) run
    bool thermal_paused = false, operator_paused = false;
    std::optional<ScheduleState> state;  // queued | waiting_cool | opening | failed, while not running
    std::string detail;
    int failures = 0;                 // consecutive failed starts: the retry's backoff
    std::string last_error;           // of those, what was logged last
    std::uint64_t failed_starts = 0;  // every failed start, for the metric
    bool once_checked = false;        // a once-soak's store record was read (or an operator overrode it)
  };
  // A once-soak's first start asks the store whether it already ran; false
  // when it did (or the store cannot say yet: retried like a failed start).
  bool once_may_start(Slot& s, WallTime now);
  void start_failed(Slot& s, const Error& error, WallTime now);
  void plan(Slot& s, WallTime now);
  void reap(WallTime now);
  void start_queued(WallTime now, const DriveLookup& drives);
  // SoakControl::start's answer for the slot `name` (started at `asked`).
  void opened(const std::string& name, std::uint64_t ticket, Result<std::int64_t> run, WallTime asked);
  void follow_throttling(const DriveLookup& drives);
  Slot* by_run(std::int64_t run);

  SoakControl& control_;
  Jitter jitter_;
  const DriveClaims* claims_ = nullptr;
  std::map<std::string, Slot> slots_;
  std::deque<std::string> queue_;  // slot names, in the order they became due
  std::uint64_t tickets_ = 0;      // the last start's ticket
};

}  // namespace nvmond
