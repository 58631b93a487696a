#include "metrics/samples.hpp"

#include <cmath>

namespace nvmond {

std::string label_of(const prometheus::ClientMetric& m, const std::string& name) {
  for (const auto& l : m.label) {
    if (l.name == name) return l.value;
  }
  return {};
}

double value_of(const prometheus::MetricFamily& f, const prometheus::ClientMetric& m) {
  switch (f.type) {
    case prometheus::MetricType::Counter: return m.counter.value;
    case prometheus::MetricType::Gauge: return m.gauge.value;
    case prometheus::MetricType::Untyped: return m.untyped.value;
    default: return std::nan("");
  }
}

}  // namespace nvmond
