#pragma once
// The one way tests look up what is exported: a family by name, a series by
// a subset of its labels, a sample's value (a label's value: label_of() in
// metrics/samples.hpp).
#include <prometheus/metric_family.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "metrics/samples.hpp"

namespace nvmond::test {

using LabelSubset = std::map<std::string, std::string>;

// The family called `name`; nullptr if there is none.
inline const prometheus::MetricFamily* family(const std::vector<prometheus::MetricFamily>& fams,
                                              const std::string& name) {
  for (const auto& f : fams) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// The first series of `f` whose labels include every one of `labels`.
inline const prometheus::ClientMetric* series_in(const prometheus::MetricFamily& f, const LabelSubset& labels) {
  for (const auto& m : f.metric) {
    std::size_t hits = 0;
    for (const auto& [k, v] : labels) hits += label_of(m, k) == v ? 1 : 0;
    if (hits == labels.size()) return &m;
  }
  return nullptr;
}

// The first series of `name` whose labels include every one of `labels`;
// nullptr if there is none.
inline const prometheus::ClientMetric* series(const std::vector<prometheus::MetricFamily>& fams,
                                              const std::string& name, const LabelSubset& labels = {}) {
  for (const auto& f : fams) {
    const auto* m = f.name == name ? series_in(f, labels) : nullptr;
    if (m != nullptr) return m;
  }
  return nullptr;
}

// The value of the first series of `name` whose labels include `labels`
// (gauge, counter or untyped); NaN if there is none.
inline double sample(const std::vector<prometheus::MetricFamily>& fams, const std::string& name,
                     const LabelSubset& labels = {}) {
  for (const auto& f : fams) {
    const auto* m = f.name == name ? series_in(f, labels) : nullptr;
    if (m != nullptr) return value_of(f, *m);
  }
  return std::nan("");
}

}  // namespace nvmond::test
