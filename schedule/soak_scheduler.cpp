#include "schedule/soak_scheduler.hpp"

#include <fmt/format.h>
#include <fmt/chrono.h>

#include "core/log.hpp"

#include <algorithm>
#include <set>

namespace nvmond {

std::string SoakEntry::normalized() const {
  std::string out = fmt::format("name={}\ntest={}\nprofile={}\ntarget={}\n", request.name, request.test.test,
                                profile_name(request.test.profile), request.target);
  for (const auto& [k, v] : request.test.text()) out += fmt::format("params.{}={}\n", k, v);  // std::map: sorted
  out += fmt::format("schedule={}\nrandomized_delay={}\nthermal_margin={}\non_throttle={}\n",
                     timing.schedule.normalized(), timing.randomized_delay.count(), timing.thermal_margin_c,
                     timing.on_throttle == OnThrottle::pause ? "pause" : "record");
  return out;
}

std::string SoakEntry::definition() const {
  std::string text = fmt::format("test={}\nprofile={}\ntarget={}\n", request.test.test,
                                 profile_name(request.test.profile), request.target);
  for (const auto& [k, v] : request.test.text()) text += fmt::format("params.{}={}\n", k, v);  // std::map: sorted
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64: stable across builds and hosts
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

namespace {

// Whether `last`, the newest run of a once-soak, means it has run: started
// from the same definition and ended for good.
bool ran_once(const LastRun& last, const SoakEntry& entry) {
  const bool same = last.definition.empty()
                        ? last.test == entry.request.test.test && last.target == entry.request.target
                        : last.definition == entry.definition();
  if (!same) return false;
  if (last.status == RunStatus::running) return false;                        // a crash left it: resumed
  if (last.status == RunStatus::interrupted && last.resumable) return false;  // a stopping daemon closed it
  return true;
}

}  // namespace

SoakTiming read_soak_timing(TableReader& t) {
  SoakTiming timing;
  if (auto s = t.string("schedule")) {
    auto parsed = parse_schedule(*s);
    if (!parsed) t.fail("schedule", parsed.error().message);
    timing.schedule = std::move(*parsed);
  }
  if (auto d = t.duration("randomized_delay")) timing.randomized_delay = *d;
  if (auto m = t.number_in("thermal_margin", 0, 100)) timing.thermal_margin_c = *m;
  if (auto o = t.choice("on_throttle", {"pause", "record"})) {
    timing.on_throttle = *o == "pause" ? OnThrottle::pause : OnThrottle::record;
  }
  return timing;
}

SoakScheduler::SoakScheduler(SoakControl& control, Jitter jitter, const DriveClaims* claims)
    : control_(control), jitter_(std::move(jitter)), claims_(claims) {}

void SoakScheduler::plan(Slot& s, WallTime now) {
  s.due.reset();
  if (s.manual) return;
  auto at = next_start(s.entry.timing.schedule, s.last_start, now);
  if (!at) return;
  Duration delay = s.entry.timing.randomized_delay;
  s.due = *at + (delay > Duration::zero() && jitter_ ? jitter_(delay) : Duration::zero());
}

void SoakScheduler::configure(const std::vector<SoakEntry>& entries, WallTime now) {
  std::map<std::string, Slot> next;
  for (const auto& e : entries) {
    auto old = slots_.find(e.request.name);
    if (old != slots_.end() && !old->second.manual && old->second.entry.normalized() == e.normalized()) {
      next.emplace(e.request.name, std::move(old->second));
      slots_.erase(old);
      continue;
    }
    Slot s;
    s.entry = e;
    s.entry.request.definition = e.definition();
    plan(s, now);
    next.emplace(e.request.name, std::move(s));
  }
  for (auto& [name, s] : slots_) {
    if (s.manual && s.state != ScheduleState::failed) {
      next.emplace(name, std::move(s));
    } else if (s.run) {
      (void)control_.stop(*s.run);  // changed or removed: its run ends, resumable
    }
  }
  slots_ = std::move(next);
  std::erase_if(queue_, [&](const std::string& n) { return !slots_.contains(n) || !slots_.at(n).queued; });
}

std::string SoakScheduler::request(SoakRequest request, WallTime now) {
  Slot s;
  if (request.name.empty()) {
    // Named by when it was asked for (UTC), so a name never comes back after
    // a restart, where a counter would start again at 1.
    const std::string base = "manual-" + utc_stamp(now);
    request.name = base;
    for (int i = 2; slots_.contains(request.name); ++i) request.name = fmt::format("{}-{}", base, i);
  }
  s.entry.request = std::move(request);
  s.entry.request.resumable = false;
  s.manual = true;
  s.due = now;
  std::string name = s.entry.request.name;
  slots_[name] = std::move(s);
  return name;
}

std::optional<std::string> SoakScheduler::run_again(const std::string& name, WallTime now) {
  auto it = slots_.find(name);
  if (it == slots_.end() || it->second.manual) return fmt::format("no [[soak]] named \"{}\"", name);
  Slot& s = it->second;
  if (s.run) return fmt::format("soak {} is in progress as run {}", name, *s.run);
  if (s.queued) return std::nullopt;  // already due, waiting for its drive
  s.once_checked = true;              // the operator's word over the store's record
  s.failures = 0;
  s.last_error.clear();
  s.state.reset();
  s.detail.clear();
  s.due = now;
  return std::nullopt;
}

bool SoakScheduler::once_may_start(Slot& s, WallTime now) {
  if (s.manual || s.once_checked || s.entry.timing.schedule.kind != Schedule::Kind::once) return true;
  const std::string& name = s.entry.request.name;
  auto last = control_.last_run(name);
  if (!last) {
    s.last_start = now;  // so the retry below waits its backoff
    start_failed(s, Error{last.error().reason, "cannot tell whether it already ran: " + last.error().message}, now);
    return false;
  }
  s.once_checked = true;
  if (!*last || !ran_once(**last, s.entry)) return true;
  const LastRun& r = **last;
  s.due.reset();
  s.state.reset();
  s.detail = fmt::format("ran once as run {} ({}); `nvmonctl start {}` runs it again", r.id, to_text(r.status), name);
  log::info(
      "soak {}: not started: it ran once as run {} ({}) from the same definition; `nvmonctl start {}` runs it "
      "again",
      name, r.id, to_text(r.status), name);
  return false;
}

SoakScheduler::Slot* SoakScheduler::by_run(std::int64_t run) {
  for (auto& [_, s] : slots_) {
    if (s.run == run) return &s;
  }
  return nullptr;
}

void SoakScheduler::operator_paused(std::int64_t run, bool paused) {
  if (Slot* s = by_run(run)) {
    s->operator_paused = paused;
    if (!paused) s->thermal_paused = false;
  }
}

void SoakScheduler::reap(WallTime now) {
  std::set<std::int64_t> live;
  for (const auto& r : control_.active()) live.insert(r.id);
  for (auto it = slots_.begin(); it != slots_.end();) {
    Slot& s = it->second;
    if (s.run && !live.contains(*s.run)) {
      if (s.manual) {
        it = slots_.erase(it);
        continue;
      }
      s.run.reset();
      s.thermal_paused = s.operator_paused = false;
      s.detail.clear();
      plan(s, now);
    }
    ++it;
  }
}

void SoakScheduler::start_queued(WallTime now, const DriveLookup& drives) {
  std::vector<Slot*> due;
  for (auto& [name, s] : slots_) {
    if (!s.run && !s.opening && !s.queued && s.due && *s.due <= now && once_may_start(s, now)) due.push_back(&s);
  }
  std::stable_sort(due.begin(), due.end(), [](const Slot* a, const Slot* b) { return *a->due < *b->due; });
  for (Slot* s : due) {
    s->queued = true;
    s->state = ScheduleState::queued;
    queue_.push_back(s->entry.request.name);
  }
  // This scheduler's own runs, the opening ones included (not claimed yet);
  // the rest of the drive's users are in the claims.
  std::map<std::string, std::string> busy;  // drive → what uses it
  for (const auto& [name, s] : slots_) {
    if (s.run) busy[s.drive] = fmt::format("run {}", *s.run);
    else if (s.opening) busy[s.drive] = fmt::format("soak {} (opening)", name);
  }
  auto user = [&](const std::string& drive) -> std::optional<std::string> {
    if (auto b = busy.find(drive); b != busy.end()) return b->second;
    if (claims_ != nullptr) {
      if (auto use = claims_->holder(drive)) return holder_text(*use);
    }
    return std::nullopt;
  };
  for (auto it = queue_.begin(); it != queue_.end();) {
    Slot& s = slots_.at(*it);
    auto d = drives ? drives(s.entry.request.target) : std::nullopt;
    const std::string drive = d && !d->serial.empty() ? d->serial : s.entry.request.target;
    if (auto u = user(drive)) {
      s.state = ScheduleState::queued;
      s.detail = fmt::format("drive {} busy with {}", drive, *u);
      ++it;
      continue;
    }
    if (d && d->composite_c && d->warning_c && *d->composite_c > *d->warning_c - s.entry.timing.thermal_margin_c) {
      s.state = ScheduleState::waiting_cool;
      s.detail = fmt::format("drive {} at {:.0f} °C; starts at or below {:.0f} °C", drive, *d->composite_c,
                             *d->warning_c - s.entry.timing.thermal_margin_c);
      ++it;
      continue;
    }
    const std::string name = s.entry.request.name;
    const std::uint64_t ticket = ++tickets_;
    s.queued = false;
    s.last_start = now;
    s.due.reset();
    s.opening = ticket;
    s.drive = drive;
    s.state = ScheduleState::opening;
    s.detail = "opening the target";
    it = queue_.erase(it);
    busy[drive] = fmt::format("soak {} (opening)", name);
    // Answers later, on this thread (maybe before start() returns).
    control_.start(s.entry.request,
                   [this, name, ticket, now](Result<std::int64_t> run) { opened(name, ticket, std::move(run), now); });
  }
}

void SoakScheduler::opened(const std::string& name, std::uint64_t ticket, Result<std::int64_t> run, WallTime asked) {
  auto it = slots_.find(name);
  if (it == slots_.end() || it->second.opening != ticket) {
    // configure() removed or replaced the entry while its run opened: no
    // one would follow the run, so it ends (resumable, as a changed entry's).
    if (run) (void)control_.stop(*run);
    return;
  }
  Slot& s = it->second;
  s.opening = 0;
  if (!run) {
    start_failed(s, run.error(), asked);
    return;
  }
  if (s.failures > 0) log::info("soak {}: started run {} after {} failed attempts", name, *run, s.failures);
  s.failures = 0;
  s.last_error.clear();
  s.run = *run;
  s.state.reset();
  s.detail.clear();
}

void SoakScheduler::start_failed(Slot& s, const Error& error, WallTime now) {
  const bool changed = s.last_error != error.message;
  s.last_error = error.message;
  s.state = ScheduleState::failed;
  s.detail = error.message;
  ++s.failed_starts;
  const std::string& name = s.entry.request.name;
  if (s.manual) {  // the operator asked once and sees the error in `list`
    plan(s, now);
    if (changed) log::warn("soak {}: cannot start: {}", name, error.message);
    return;
  }
  Duration wait = kFirstRetry;
  for (int i = 0; i < s.failures && wait < kMaxRetry; ++i) wait *= 2;
  wait = std::min(wait, kMaxRetry);
  ++s.failures;
  plan(s, now);
  if (!s.due || now + wait < *s.due) s.due = now + wait;
  // Once per change of reason, not per retry: a target that stays refused
  // is one line, not one an hour.
  if (changed) {
    log::warn("soak {}: cannot start: {}; trying again in {}, then less often", name, error.message,
              std::chrono::duration_cast<std::chrono::seconds>(wait));
  }
}

void SoakScheduler::follow_throttling(const DriveLookup& drives) {
  for (auto& [_, s] : slots_) {
    if (!s.run || s.operator_paused || s.entry.timing.on_throttle != OnThrottle::pause) continue;
    auto d = drives ? drives(s.entry.request.target) : std::nullopt;
    const bool hot = d && d->throttling;
    if (hot && !s.thermal_paused && control_.pause(*s.run).ok()) {
      s.thermal_paused = true;
      s.detail = "paused while the drive throttles";
    } else if (!hot && s.thermal_paused && control_.resume(*s.run).ok()) {
      s.thermal_paused = false;
      s.detail.clear();
    }
  }
}

void SoakScheduler::tick(WallTime now, const DriveLookup& drives) {
  reap(now);
  start_queued(now, drives);
  follow_throttling(drives);
}

std::vector<ScheduleView> SoakScheduler::list() const {
  std::vector<ScheduleView> out;
  // Runs the runner holds paused on its own (their rounds wait for the store).
  std::map<std::int64_t, std::string> held;
  for (const auto& r : control_.active()) {
    if (!r.paused_reason.empty()) held[r.id] = r.paused_detail;
  }
  for (const auto& [name, s] : slots_) {
    ScheduleView v{name,
                   s.entry.request.test.test,
                   s.entry.request.target,
                   s.manual ? "manual" : s.entry.timing.schedule.normalized(),
                   ScheduleState::idle,
                   s.detail,
                   s.due,
                   s.run,
                   s.failed_starts};
    if (s.run && held.contains(*s.run)) {
      v.state = ScheduleState::paused;
      v.detail = held.at(*s.run);
    } else if (s.run) {
      v.state = s.thermal_paused || s.operator_paused ? ScheduleState::paused : ScheduleState::running;
    } else if (s.opening) {
      v.state = ScheduleState::opening;
    } else if (s.state && (s.queued || *s.state == ScheduleState::failed)) {
      v.state = *s.state;
    } else if (s.due) {
      v.state = ScheduleState::scheduled;
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace nvmond
