#include "analytics/performance_watch.hpp"

#include <algorithm>

namespace nvmond {

struct PerformanceWatch::Span {
  InferredThrottle out;
};

double PerformanceWatch::celsius_at(WallTime t, WallTime now, double composite_c) const {
  if (!last_poll_ || last_celsius_ <= 0 || t >= now) return composite_c;
  if (t <= *last_poll_) return last_celsius_;
  const double share = seconds(t - *last_poll_) / seconds(now - *last_poll_);
  return last_celsius_ + share * (composite_c - last_celsius_);
}

void PerformanceWatch::keep(PerformanceThrottleEvent e) {
  episodes_.push_back(std::move(e));
  while (episodes_.size() > kKeptEpisodes) episodes_.pop_front();
}

void PerformanceWatch::end_episode(Span& span) {
  if (detector_ && detector_->throttling()) {
    PerformanceThrottleEvent e = *detector_->open();
    e.end = std::max(e.start, last_end_.value_or(e.start));
    span.out.active = true;
    span.out.ended = e.end;
    keep(std::move(e));
  }
  detector_.reset();
}

void PerformanceWatch::observe(const WorkloadThroughput& x, double celsius, double warning_c, Span& span) {
  const bool was = detector_->throttling();
  detector_->observe({x.interval_end, x.bytes_per_second, celsius, warning_c});
  if (detector_->throttling()) {
    if (!was && !span.out.started) {
      span.out.started = detector_->open()->start;
      // last_interval_ is still the previous sample's: the interval before
      // the first slow one, which may hold the onset (thermal.hpp).
      span.out.onset_after = *span.out.started - last_interval_;
    }
    span.out.active = true;
    // The episode covers exactly its slow intervals (performance_throttle.hpp);
    // a detector throttles only after a baseline, so last_end_ is its own.
    if (last_end_ && x.interval_end > *last_end_) span.out.seconds += seconds(x.interval_end - *last_end_);
  }
  for (auto& e : detector_->take_closed()) {
    span.out.active = true;
    span.out.ended = e.end;
    keep(std::move(e));
  }
  last_end_ = x.interval_end;
  last_interval_ = x.interval;
}

InferredThrottle PerformanceWatch::poll(const std::string& serial, WallTime now, double composite_c, double warning_c,
                                        const PerformanceThrottleSettings& settings) {
  Span span;
  if (!(settings == settings_)) {
    end_episode(span);
    settings_ = settings;
  }
  if (detector_ && detector_->throttling()) span.out.active = true;
  if (feed_ != nullptr) {
    for (const auto& x : feed_->take(serial, now)) {
      if (!x.fixed || x.workload != workload_) {
        end_episode(span);
        workload_ = x.workload;
      }
      if (!x.fixed) {
        last_end_ = x.interval_end;
        continue;
      }
      if (!detector_) detector_.emplace(settings_);
      observe(x, celsius_at(x.interval_end, now, composite_c), warning_c, span);
    }
  }
  // The workload stopped (or stalls) mid-episode: the episode ends at its
  // last sample, not whenever the next one might come.
  const Duration patience = 3 * std::max<Duration>(last_interval_, std::chrono::seconds(1));
  if (detector_ && detector_->throttling() && last_end_ && now - *last_end_ > patience) end_episode(span);
  if (detector_ && detector_->throttling()) span.out.ended.reset();
  last_poll_ = now;
  last_celsius_ = composite_c;
  return span.out;
}

std::deque<PerformanceThrottleEvent> PerformanceWatch::episodes() const {
  std::deque<PerformanceThrottleEvent> out = episodes_;
  if (detector_ && detector_->open()) out.push_back(*detector_->open());
  return out;
}

}  // namespace nvmond
