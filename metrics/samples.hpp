#pragma once
// Reading families back: the value of a label, the value of a sample. For
// code that consumes what was rendered (nvmonctl's drive summary, tests).
#include <prometheus/metric_family.h>

#include <string>

namespace nvmond {

// The value of label `name` on `m`; empty if it has no such label.
std::string label_of(const prometheus::ClientMetric& m, const std::string& name);

// The value of a gauge, counter or untyped series `m` of family `f`; NaN
// for histograms and summaries, which have no single value.
double value_of(const prometheus::MetricFamily& f, const prometheus::ClientMetric& m);

}  // namespace nvmond
