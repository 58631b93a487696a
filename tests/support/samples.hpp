#pragma once
// Looks up one sample in collected families, for tests of what is exported.
#include <prometheus/metric_family.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace nvmond::test {

// The value of the first sample of `name` whose labels include `labels`
// (gauge, counter or untyped); NaN if there is none.
inline double sample(const std::vector<prometheus::MetricFamily>& fams, const std::string& name,
                     const std::map<std::string, std::string>& labels = {}) {
  for (const auto& f : fams) {
    if (f.name != name) continue;
    for (const auto& m : f.metric) {
      std::size_t hits = 0;
      for (const auto& l : m.label) {
        auto it = labels.find(l.name);
        if (it != labels.end() && it->second == l.value) ++hits;
      }
      if (hits != labels.size()) continue;
      switch (f.type) {
        case prometheus::MetricType::Counter: return m.counter.value;
        case prometheus::MetricType::Gauge: return m.gauge.value;
        default: return m.untyped.value;
      }
    }
  }
  return std::nan("");
}

}  // namespace nvmond::test
