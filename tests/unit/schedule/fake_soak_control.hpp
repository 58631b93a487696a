#pragma once
// A SoakControl that records what it was asked and whose runs end when the
// test says so.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "schedule/soak_control.hpp"

namespace nvmond {

class FakeSoakControl : public SoakControl {
 public:
  // Answers at once, unless `hold` is set: then the start waits in `opening`
  // until the test calls open_held() (a target that takes its time).
  void start(const SoakRequest& r, SoakOpened opened) override {
    if (hold) {
      held.emplace_back(r, std::move(opened));
      return;
    }
    opened(begin(r));
  }
  // Answers the held starts, in order.
  void open_held() {
    auto starts = std::move(held);
    held.clear();
    for (auto& [r, opened] : starts) opened(begin(r));
  }
  bool hold = false;
  std::vector<std::pair<SoakRequest, SoakOpened>> held;

  Result<std::int64_t> begin(const SoakRequest& r) {
    if (r.test.test == "no-such-test") return Error{ErrorReason::params, "unknown test \"no-such-test\""};
    if (auto it = refuse.find(r.target); it != refuse.end()) return it->second;
    RunView v;
    v.id = next_id_++;
    v.name = r.name;
    v.test = r.test.test;
    v.target = r.target;
    v.serial = serial_of.contains(r.target) ? serial_of.at(r.target) : r.target;
    v.status = RunStatus::running;
    v.rounds_total = 10;
    v.phase = "fob";
    runs_[v.id] = v;
    started.push_back(r);
    last[r.name] = LastRun{v.id, v.test, v.target, RunStatus::running, false, r.definition, 0, std::nullopt};
    return v.id;
  }
  Result<std::monostate> stop(std::int64_t id) override { return end(id, RunStatus::interrupted); }
  Result<std::monostate> pause(std::int64_t id) override {
    // As the soak runner answers: pausing a paused run leaves it paused.
    if (auto it = runs_.find(id); it != runs_.end() && !it->second.ended_ns && it->second.status == RunStatus::paused) {
      return std::monostate{};
    }
    return set(id, RunStatus::paused, RunStatus::running);
  }
  Result<std::monostate> resume(std::int64_t id) override { return set(id, RunStatus::running, RunStatus::paused); }
  std::vector<RunView> active() const override {
    std::vector<RunView> out;
    for (const auto& [_, v] : runs_) {
      if (!v.ended_ns) out.push_back(v);
    }
    return out;
  }
  Result<std::vector<RunView>> history(const std::optional<std::string>& serial) const override {
    std::vector<RunView> out;
    for (const auto& [_, v] : runs_) {
      if (!serial || v.serial == *serial) out.insert(out.begin(), v);
    }
    return out;
  }
  Result<std::optional<LastRun>> last_run(const std::string& name) const override {
    if (last_run_error) return *last_run_error;
    if (auto it = last.find(name); it != last.end()) return std::optional<LastRun>{it->second};
    return std::optional<LastRun>{};
  }
  Result<RunDetail> show(std::int64_t id, const RoundPage& = {}) const override {
    auto it = runs_.find(id);
    if (it == runs_.end()) return Error{ErrorReason::absent, "no run " + std::to_string(id)};
    RunDetail d{it->second, {}, std::nullopt};
    for (std::int64_t i = 0; i < it->second.round; ++i)
      d.rounds.push_back(
          {i, "fob", 1000.0 + static_cast<double>(i), "{\"index\":" + std::to_string(i) + ",\"started_ns\":0}"});
    return d;
  }

  // Test side.
  std::map<std::string, Error> refuse;  // target -> the error its start fails with
  Result<std::monostate> end(std::int64_t id, RunStatus status) {
    auto it = runs_.find(id);
    if (it == runs_.end() || it->second.ended_ns)
      return Error{ErrorReason::absent, "no active run " + std::to_string(id)};
    it->second.status = status;
    it->second.ended_ns = 1;
    if (auto l = last.find(it->second.name); l != last.end() && l->second.id == id) {
      l->second.status = status;
      l->second.ended_ns = 1;
    }
    return std::monostate{};
  }
  RunView& run(std::int64_t id) { return runs_.at(id); }
  std::map<std::string, std::string> serial_of;
  std::vector<SoakRequest> started;
  // The store's newest run of each name (kept across a "restart": a new
  // scheduler on the same fake), and a failure for last_run to answer with.
  std::map<std::string, LastRun> last;
  std::optional<Error> last_run_error;

 private:
  Result<std::monostate> set(std::int64_t id, RunStatus to, RunStatus from) {
    auto it = runs_.find(id);
    if (it == runs_.end() || it->second.status != from) {
      // As the soak runner answers: a run that is not running is not in progress.
      return Error{from == RunStatus::paused ? ErrorReason::not_paused : ErrorReason::absent,
                   "run " + std::to_string(id) + " is not " + std::string(to_text(from))};
    }
    it->second.status = to;
    return std::monostate{};
  }
  std::map<std::int64_t, RunView> runs_;
  std::int64_t next_id_ = 1;
};

}  // namespace nvmond
