#include "daemon/metric_set.hpp"

namespace nvmond {

prometheus::MetricFamily& MetricSet::family(const std::string& name, const std::string& help,
                                            prometheus::MetricType type) {
  auto [it, inserted] = families_.try_emplace(name);
  if (inserted) {
    it->second.name = name;
    it->second.help = help;
    it->second.type = type;
  }
  return it->second;
}

void MetricSet::gauge(const std::string& name, const std::string& help, const Labels& labels,
                      double value) {
  prometheus::ClientMetric m;
  m.label = labels;
  m.gauge.value = value;
  family(name, help, prometheus::MetricType::Gauge).metric.push_back(std::move(m));
}

void MetricSet::counter(const std::string& name, const std::string& help, const Labels& labels,
                        double value) {
  prometheus::ClientMetric m;
  m.label = labels;
  m.counter.value = value;
  family(name, help, prometheus::MetricType::Counter).metric.push_back(std::move(m));
}

std::vector<prometheus::MetricFamily> MetricSet::take() {
  std::vector<prometheus::MetricFamily> out;
  out.reserve(families_.size());
  for (auto& [name, fam] : families_) out.push_back(std::move(fam));
  families_.clear();
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
