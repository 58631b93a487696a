#include "soak/patient_run_store.hpp"

#include <algorithm>

namespace nvmond {

bool store_failure_heals(const Error& error) {
  switch (error.reason) {
    case ErrorReason::locked:
    case ErrorReason::full:
    case ErrorReason::read_only:
    case ErrorReason::io: return true;
    default: return false;
  }
}

PatientRunStore::PatientRunStore(RunStore& store, const Clock& clock, PauseFn on_pause, bool patient, StoreRetry retry)
    : store_(store), clock_(clock), on_pause_(std::move(on_pause)), retry_(retry), patient_(patient) {}

void PatientRunStore::be_patient() {
  std::lock_guard lock(mu_);
  patient_ = true;
}

void PatientRunStore::give_up() {
  std::lock_guard lock(mu_);
  given_up_ = true;
  cv_.notify_all();
}

bool PatientRunStore::wait_until(WallTime until) {
  // A clock that shows no real time passing (a test's ManualClock) is looked
  // at again this often, until its test moves it.
  constexpr Duration kLookAgain = std::chrono::milliseconds(10);
  const WallTime from = clock_.wall();
  std::unique_lock lock(mu_);
  for (;;) {
    if (given_up_) return false;
    const WallTime now = clock_.wall();
    // A clock stepped back must not stretch the wait: try now.
    if (now >= until || now < from) return true;
    cv_.wait_for(lock, std::max<Duration>(clock_.to_real(until - now), kLookAgain));
  }
}

Result<std::monostate> PatientRunStore::patiently(const std::function<Result<std::monostate>()>& write,
                                                  const std::function<bool()>& landed) {
  Duration backoff = Duration::zero();
  bool paused = false;
  for (;;) {
    Result<std::monostate> r = write();
    if (!r && paused && r.error().reason == ErrorReason::duplicate && landed()) r = std::monostate{};
    bool patient;
    {
      std::lock_guard lock(mu_);
      patient = patient_ && !given_up_;
    }
    if (r || !patient || !store_failure_heals(r.error())) {
      if (paused && on_pause_) on_pause_(std::nullopt);
      return r;
    }
    if (on_pause_) on_pause_(r.error());
    paused = true;
    backoff = backoff == Duration::zero() ? retry_.first : std::min(backoff * 2, retry_.max);
    if (!wait_until(clock_.wall() + std::chrono::duration_cast<WallTime::duration>(backoff))) return r;
  }
}

Result<std::monostate> PatientRunStore::commit_round(std::int64_t run, const RoundRow& round,
                                                     const std::string& checkpoint) {
  return patiently([&] { return store_.commit_round(run, round, checkpoint); },
                   [&] {
                     // The same index under the same run: not a round of a
                     // fresh database that lost the run.
                     auto there = store_.rounds_page(run, round.index, 1);
                     return there && !there->empty() && there->front().index == round.index &&
                            there->front().data == round.data;
                   });
}

Result<std::monostate> PatientRunStore::update_run(std::int64_t run, RunStatus status,
                                                   std::optional<std::int64_t> ended_ns, const std::string& header) {
  return patiently([&] { return store_.update_run(run, status, ended_ns, header); }, [] { return false; });
}

}  // namespace nvmond
