#include "sim/sim_engine.hpp"

#include <algorithm>
#include <limits>
#include <thread>

namespace nvmond {

SimEngine::SimEngine(std::shared_ptr<DriveModel> model, const Clock& clock, std::string serial)
    : model_(std::move(model)), clock_(clock), serial_(std::move(serial)) {}

std::optional<Error> SimEngine::setup(const EngineSetup& s) {
  if (!model_)
    return Error{ErrorReason::setup, "no simulated drive with serial \"" + serial_ + "\" (" + s.target + ")"};
  manual_ = clock_.to_real(std::chrono::seconds(1)).count() == 0;
  now_ = busy_until_ = to_unix_ns(clock_.wall());
  capacity_ = s.queue_depth;
  queued_.reserve(capacity_);
  inflight_.reserve(capacity_);
  return std::nullopt;
}

std::uint64_t SimEngine::target_size() const { return model_ ? model_->spec().capacity_bytes : 0; }

bool SimEngine::queue(IoUnit& unit) {
  if (queued_.size() + inflight_.size() >= capacity_) return false;
  queued_.push_back(&unit);
  return true;
}

std::optional<Error> SimEngine::commit() {
  for (IoUnit* u : queued_) {
    const bool sequential = u->offset == last_end_;
    last_end_ = u->offset + u->length;
    const std::int64_t start = std::max(now_, busy_until_);
    model_->advance_to(from_unix_ns(start));
    const Duration service = model_->io_at(u->op, u->offset, u->length, sequential);
    busy_until_ = start + service.count();
    const std::int64_t done = busy_until_ + model_->access_latency(u->op).count();
    model_->record_latency(u->op, Duration(done - now_));  // the drive times it from submission
    inflight_.push_back({done, u});
  }
  queued_.clear();
  return std::nullopt;
}

Result<std::size_t> SimEngine::reap(std::size_t min, Duration max_wait, std::span<IoCompletion> out) {
  commit();
  if (min > 0) {
    std::int64_t target = std::numeric_limits<std::int64_t>::max();
    if (inflight_.size() >= min) {
      std::vector<std::int64_t>::size_type k = min - 1;
      // k-th earliest completion; QD is small, a partial sort of a copy is fine
      // off the hot path of real devices.
      std::nth_element(inflight_.begin(), inflight_.begin() + static_cast<std::ptrdiff_t>(k), inflight_.end(),
                       [](const InFlight& a, const InFlight& b) { return a.done_ns < b.done_ns; });
      target = inflight_[k].done_ns;
    }
    if (max_wait.count() >= 0) target = std::min(target, now_ + max_wait.count());
    if (target != std::numeric_limits<std::int64_t>::max()) wait_until(target);
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < inflight_.size() && n < out.size();) {
    if (inflight_[i].done_ns <= now_) {
      out[n++] =
          IoCompletion{inflight_[i].unit, static_cast<std::int32_t>(inflight_[i].unit->length), inflight_[i].done_ns};
      inflight_[i] = inflight_.back();
      inflight_.pop_back();
    } else {
      ++i;
    }
  }
  model_->advance_to(from_unix_ns(now_));
  return n;
}

void SimEngine::wait_until(std::int64_t t) {
  if (t <= now_) return;
  if (!manual_) {
    const std::int64_t clock_now = to_unix_ns(clock_.wall());
    if (t > clock_now) std::this_thread::sleep_for(clock_.to_real(Duration(t - clock_now)));
  }
  now_ = t;
}

void SimEngine::idle(Duration d) {
  if (d.count() > 0) wait_until(now_ + d.count());
}

}  // namespace nvmond
