#include "metrics/metric_set.hpp"

#include <algorithm>
#include <stdexcept>

namespace nvmond {

Labels with(Labels base, std::string name, std::string value) {
  base.push_back({std::move(name), std::move(value)});
  return base;
}

prometheus::MetricFamily& MetricSet::family(const Family& f) {
  if (auto it = index_.find(std::string_view(f.name)); it != index_.end()) return families_[it->second];
  index_.emplace(f.name, families_.size());
  return families_.emplace_back(prometheus::MetricFamily{f.name, f.help, f.type, {}});
}

void MetricSet::declare(const Family& f) { family(f); }

void MetricSet::add(const Family& f, Labels labels, double value) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  switch (f.type) {
    case prometheus::MetricType::Counter: m.counter.value = value; break;
    case prometheus::MetricType::Gauge: m.gauge.value = value; break;
    case prometheus::MetricType::Untyped: m.untyped.value = value; break;
    default:  // a programming error, not a runtime condition
      throw std::logic_error(std::string("MetricSet::add: ") + f.name + " needs add_series()");
  }
  add_series(f, std::move(m));
}

void MetricSet::add_series(const Family& f, prometheus::ClientMetric series) {
  family(f).metric.push_back(std::move(series));
}

std::vector<prometheus::MetricFamily> MetricSet::take() {
  std::vector<prometheus::MetricFamily> out;
  out.reserve(families_.size());
  for (auto& fam : families_) {
    if (!fam.metric.empty()) out.push_back(std::move(fam));
  }
  if (order_ == Order::by_name) {
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  }
  families_.clear();
  index_.clear();
  return out;
}

std::vector<prometheus::MetricFamily> merge_families(
    const std::vector<const std::vector<prometheus::MetricFamily>*>& parts) {
  std::map<std::string, prometheus::MetricFamily> by_name;
  for (const auto* part : parts) {
    for (const auto& fam : *part) {
      auto [it, inserted] = by_name.try_emplace(fam.name, fam);
      if (!inserted) {
        auto& dst = it->second.metric;
        dst.insert(dst.end(), fam.metric.begin(), fam.metric.end());
      }
    }
  }
  std::vector<prometheus::MetricFamily> out;
  out.reserve(by_name.size());
  for (auto& [name, fam] : by_name) out.push_back(std::move(fam));
  return out;
}

}  // namespace nvmond
