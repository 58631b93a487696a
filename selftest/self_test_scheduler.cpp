#include "selftest/self_test_scheduler.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "collectors/nvme/self_test_log.hpp"
#include "core/log.hpp"
#include "drivelog/self_test_pacing.hpp"

namespace nvmond {

namespace {

constexpr auto kSelfTestRetry = std::chrono::minutes(1);

const DriveSummary* find_drive(const std::vector<DriveSummary>& drives, const std::string& serial) {
  auto it = std::find_if(drives.begin(), drives.end(), [&](const DriveSummary& d) { return d.serial == serial; });
  return it == drives.end() ? nullptr : &*it;
}

}  // namespace

std::string self_test_state_key(const std::string& who) { return "selftest:" + who; }

std::string encode_self_test_record(const SelfTestRecord& r) {
  return nlohmann::json{{"kind", self_test_kind_name(r.kind)},
                        {"who", r.who},
                        {"started_ns", r.started.time_since_epoch().count()},
                        {"outcome", r.outcome},
                        {"seen_running", r.seen_running}}
      .dump();
}

std::optional<SelfTestRecord> decode_self_test_record(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    SelfTestRecord r;
    const auto kind = self_test_kind_from_name(j.at("kind").get<std::string>());
    if (!kind) return std::nullopt;
    r.kind = *kind;
    r.who = j.at("who").get<std::string>();
    r.started = WallTime(WallTime::duration(j.at("started_ns").get<std::int64_t>()));
    r.outcome = j.at("outcome").get<std::string>();
    r.seen_running = j.at("seen_running").get<bool>();
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

SelfTestScheduler::SelfTestScheduler(std::vector<SelfTestPlan> plans, std::int64_t max_concurrent, Store& store,
                                     SelfTestHooks hooks, DriveClaims* claims)
    : plans_(std::move(plans)),
      max_concurrent_(static_cast<std::size_t>(std::max<std::int64_t>(max_concurrent, 1))),
      store_(store),
      hooks_(std::move(hooks)),
      registry_(claims) {}

Result<DriveClaim> SelfTestScheduler::claim(const DriveSummary& drive, SelfTestKind kind, WallTime now) {
  if (registry_ == nullptr) return DriveClaim{};
  return registry_->claim(drive.serial, DriveUse{DriveUse::Kind::self_test, self_test_kind_name(kind), now});
}

void SelfTestScheduler::adopt(std::map<std::string, DriveClaim> claims) {
  for (auto& [serial, c] : claims) claims_[serial] = std::move(c);
}

// A drive is held while its log shows a test running (one no one here
// started included), and while a start of ours is in flight or not yet seen
// in the log; released once the log shows none.
void SelfTestScheduler::follow_claims(const std::vector<DriveSummary>& drives, WallTime now) {
  if (registry_ == nullptr) return;
  for (const auto& d : drives) {
    const bool running = d.self_test && d.self_test->running();
    auto held = claims_.find(d.serial);
    if (running) {
      if (held != claims_.end()) continue;
      const SelfTestKind kind =
          d.self_test->current_operation == 2 ? SelfTestKind::extended_test : SelfTestKind::short_test;
      if (auto c = registry_->claim(d.serial,
                                    DriveUse{DriveUse::Kind::self_test, self_test_kind_name(kind), std::nullopt})) {
        claims_.emplace(d.serial, std::move(*c));
      }
      continue;
    }
    if (held == claims_.end() || !d.self_test) continue;  // nothing held, or the log not read yet
    const bool awaited = std::any_of(slots_.begin(), slots_.end(), [&](const auto& entry) {
      const Slot& s = entry.second;
      return entry.first.second == d.serial &&
             (s.starting || (s.last && s.last->outcome.empty() && !s.last->seen_running &&
                             now - s.last->started < kIdleSelfTestRead));
    });
    if (!awaited) claims_.erase(held);
  }
}

SelfTestScheduler::Slot& SelfTestScheduler::slot(const std::string& key, const DriveSummary& drive) {
  Slot& s = slots_[{key, drive.serial}];
  if (s.loaded) return s;
  auto stored = store_.state(DriveKey{drive.serial, drive.model}, key);
  if (!stored) {
    log::warn("{} ({}): {}: reading the last self-test start: {}", drive.path, drive.serial, key,
              stored.error().message);
    return s;  // not loaded: asked again next tick, and nothing starts meanwhile
  }
  s.loaded = true;
  if (*stored) {
    s.last = decode_self_test_record(**stored);
    if (!s.last)
      log::warn("{} ({}): {}: unreadable record in the store; planning as if never started", drive.path, drive.serial,
                key);
  }
  return s;
}

void SelfTestScheduler::remember(const DriveSummary& drive, const std::string& key, const SelfTestRecord& record) {
  PollRecord r;
  r.drive = DriveKey{drive.serial, drive.model};
  r.state.emplace_back(key, encode_self_test_record(record));
  if (auto st = store_.commit(r); !st) {
    log::warn("{} ({}): {}: recording the self-test: {}", drive.path, drive.serial, key, st.error().message);
  }
}

// The outcome is the newest result once the test ran and ended, or, for one
// never seen running (shorter than the reads' spacing), once the log has
// surely been read since it started.
void SelfTestScheduler::follow_outcome(const std::string& key, const DriveSummary& drive, SelfTestRecord& record,
                                       WallTime now) {
  if (!drive.self_test) return;
  if (drive.self_test->running()) {
    if (!record.seen_running) {
      record.seen_running = true;
      remember(drive, key, record);
    }
    return;
  }
  if (!record.seen_running && now - record.started < kIdleSelfTestRead) return;
  if (drive.self_test->results.empty()) return;
  const auto& newest = drive.self_test->results.front();
  record.outcome = std::string(self_test_result_text(newest.result()));
  remember(drive, key, record);
  log::info("{} ({}): {} self-test started by {} ended: {}", drive.path, drive.serial, self_test_kind_name(record.kind),
            record.who, record.outcome);
}

std::size_t SelfTestScheduler::testing(const std::vector<DriveSummary>& drives, WallTime now) const {
  std::set<std::string> serials;
  for (const auto& d : drives) {
    if (d.self_test && d.self_test->running()) serials.insert(d.serial);
  }
  for (const auto& [key, s] : slots_) {
    // Sent and not answered yet, or started and its log not read yet.
    if (s.starting ||
        (s.last && s.last->outcome.empty() && !s.last->seen_running && now - s.last->started < kIdleSelfTestRead)) {
      serials.insert(key.second);
    }
  }
  return serials.size();
}

std::optional<std::string> SelfTestScheduler::problem(const DriveSummary& d) const {
  if (!d.up) return std::string("the drive is not answering");
  if (!d.self_test_supported) return std::string("the drive does not support Device Self-test");
  if (d.self_test && d.self_test->running()) return std::string("a self-test is running on it");
  // Its own claims (a test in progress) are covered above by the log and by
  // the start's claim; here only what a test would compete with.
  if (registry_ != nullptr) {
    if (auto use = registry_->holder(d.serial); use && use->kind != DriveUse::Kind::self_test) {
      return "in use by " + holder_text(*use);
    }
  }
  if (d.composite_c && d.warning_c && *d.composite_c >= *d.warning_c) {
    return fmt::format("hot: {:.0f} °C, at or above its warning threshold of {:.0f} °C", *d.composite_c, *d.warning_c);
  }
  return std::nullopt;
}

void SelfTestScheduler::tick(WallTime now) {
  // Called every second: without a plan or a test to follow there is
  // nothing to look at, and copying every drive's summary is not free.
  if (plans_.empty() && slots_.empty() && claims_.empty()) return;
  const auto drives = hooks_.drives();
  for (auto& [key, s] : slots_) {
    if (!s.last || !s.last->outcome.empty()) continue;
    if (const DriveSummary* d = find_drive(drives, key.second)) follow_outcome(key.first, *d, *s.last, now);
  }
  follow_claims(drives, now);
  std::size_t busy = testing(drives, now);
  for (const auto& plan : plans_) {
    const std::string key = self_test_state_key(plan.name);
    for (const auto& serial : plan.drives) {
      const DriveSummary* d = find_drive(drives, serial);
      if (d == nullptr) continue;  // not identified (yet): nothing to test
      Slot& s = slot(key, *d);
      if (!s.loaded || s.starting) continue;
      const auto due = next_start(plan.schedule, s.last ? std::optional<WallTime>(s.last->started) : std::nullopt, now);
      if (!due || *due > now || now < s.retry_after) continue;
      auto why = problem(*d);
      if (!why && busy >= max_concurrent_) {
        why = fmt::format("{} drive(s) self-testing already ([daemon] max_concurrent_selftests = {})", busy,
                          max_concurrent_);
      }
      std::optional<DriveClaim> held;
      if (!why) {
        auto c = claim(*d, plan.kind, now);
        if (c) held = std::move(*c);
        else why = c.error().message;
      }
      if (why) {
        if (s.deferred != *why)
          log::info("selftest {}: {} test on {} deferred: {}", plan.name, self_test_kind_name(plan.kind), serial, *why);
        s.deferred = *why;
        continue;
      }
      s.starting = true;
      ++busy;
      // std::function copies what it holds: the claim travels in a shared_ptr.
      auto claim_of = std::make_shared<DriveClaim>(std::move(*held));
      hooks_.start(d->path, plan.kind,
                   [this, alive = std::weak_ptr<int>(alive_), name = plan.name, drive = *d, kind = plan.kind, now,
                    claim_of](std::optional<Error> failed) {
                     if (alive.expired()) return;
                     on_started(name, drive, kind, now, std::move(*claim_of), failed);
                   });
    }
  }
}

void SelfTestScheduler::on_started(const std::string& plan, const DriveSummary& drive, SelfTestKind kind, WallTime now,
                                   DriveClaim claim, const std::optional<Error>& failed) {
  const std::string key = self_test_state_key(plan);
  auto it = slots_.find({key, drive.serial});
  if (it == slots_.end()) return;
  Slot& s = it->second;
  s.starting = false;
  if (failed) {
    s.retry_after = now + kSelfTestRetry;  // a drive that refuses is not asked every second
    if (s.deferred != failed->message) {
      log::info("selftest {}: {} test on {} deferred: {}", plan, self_test_kind_name(kind), drive.serial,
                failed->message);
    }
    s.deferred = failed->message;
    return;
  }
  s.deferred.clear();
  s.last = SelfTestRecord{kind, "schedule", now, "", false};
  remember(drive, key, *s.last);
  if (claim.held()) claims_[drive.serial] = std::move(claim);
  log::info("selftest {}: {} self-test started on {} ({})", plan, self_test_kind_name(kind), drive.serial, drive.path);
}

void SelfTestScheduler::started_by_operator(const DriveSummary& drive, SelfTestKind kind, WallTime now,
                                            DriveClaim claim) {
  const std::string key = self_test_state_key("nvmonctl");
  Slot& s = slots_[{key, drive.serial}];
  s.loaded = true;
  s.last = SelfTestRecord{kind, "nvmonctl", now, "", false};
  remember(drive, key, *s.last);
  if (claim.held()) claims_[drive.serial] = std::move(claim);
}

}  // namespace nvmond
