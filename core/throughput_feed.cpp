#include "core/throughput_feed.hpp"

#include <algorithm>

namespace nvmond {

void ThroughputFeed::report(WorkloadThroughput sample) {
  if (sample.serial.empty()) return;
  std::lock_guard lock(mu_);
  auto& q = by_serial_[sample.serial];
  // Writers report in time order per workload; two workloads on one drive may
  // interleave, so keep the queue sorted by interval end.
  auto at = std::upper_bound(q.begin(), q.end(), sample.interval_end,
                             [](WallTime t, const WorkloadThroughput& s) { return t < s.interval_end; });
  q.insert(at, std::move(sample));
  while (q.size() > limit_) {
    q.pop_front();
    ++dropped_;
  }
}

std::vector<WorkloadThroughput> ThroughputFeed::take(const std::string& serial, WallTime upto) {
  std::vector<WorkloadThroughput> out;
  std::lock_guard lock(mu_);
  auto it = by_serial_.find(serial);
  if (it == by_serial_.end()) return out;
  auto& q = it->second;
  while (!q.empty() && q.front().interval_end <= upto) {
    out.push_back(std::move(q.front()));
    q.pop_front();
  }
  return out;
}

std::uint64_t ThroughputFeed::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace nvmond
