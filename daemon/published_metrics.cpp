#include "daemon/published_metrics.hpp"

#include "daemon/metric_set.hpp"

namespace nvmond {

void PublishedMetrics::publish(const std::string& key, Families families) {
  auto snapshot = std::make_shared<const Families>(std::move(families));
  std::lock_guard lock(mu_);
  sources_[key] = std::move(snapshot);
}

void PublishedMetrics::remove(const std::string& key) {
  std::lock_guard lock(mu_);
  sources_.erase(key);
}

std::vector<prometheus::MetricFamily> PublishedMetrics::Collect() const {
  std::vector<std::shared_ptr<const Families>> held;
  {
    std::lock_guard lock(mu_);
    held.reserve(sources_.size());
    for (const auto& [key, fams] : sources_) held.push_back(fams);
  }
  std::vector<const Families*> parts;
  parts.reserve(held.size());
  for (const auto& h : held) parts.push_back(h.get());
  return merge_families(parts);
}

}  // namespace nvmond
