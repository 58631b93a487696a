#include "core/clock.hpp"

#include <fmt/chrono.h>

namespace nvmond {

std::string utc_stamp(WallTime t) {
  return fmt::format("{:%Y%m%dT%H%M%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(t)));
}

AcceleratedClock::AcceleratedClock(WallTime start, double factor)
    : start_(start), real_start_(std::chrono::steady_clock::now()), factor_(factor) {}

WallTime AcceleratedClock::wall() const {
  auto real = std::chrono::steady_clock::now() - real_start_;
  auto scaled = std::chrono::duration_cast<WallTime::duration>(std::chrono::duration<double, std::nano>(
      static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(real).count()) * factor_));
  return start_ + scaled;
}

Duration AcceleratedClock::to_real(Duration d) const {
  return Duration(static_cast<Duration::rep>(static_cast<double>(d.count()) / factor_));
}

ManualClock::ManualClock(WallTime start) : now_(start) {}

WallTime ManualClock::wall() const {
  std::lock_guard lock(mu_);
  return now_;
}

void ManualClock::advance(Duration d) {
  std::unique_lock lock(mu_);
  now_ += std::chrono::duration_cast<WallTime::duration>(d);
  fire_due(lock);
}

void ManualClock::set(WallTime t) {
  std::unique_lock lock(mu_);
  now_ = t;
  fire_due(lock);
}

}  // namespace nvmond
