#pragma once
// Reading rendered families back into prometheus-cpp's types, for code that
// inspects what is published (tests, PublishedMetrics::Collect()) rather
// than serving it. Reads exactly what exposition_text writes; values come
// back as the text has them (16 significant digits), and a histogram gets
// its +Inf bucket as an explicit one.
//
// Not on any scrape's or poll's path.
#include <prometheus/metric_family.h>

#include <vector>

#include "metrics/rendered_families.hpp"

namespace nvmond {

// One MetricFamily per slice, in their order; a malformed line throws
// std::invalid_argument naming it (a renderer's bug, not an input error).
std::vector<prometheus::MetricFamily> parse_families(const RenderedFamilies& rendered);

}  // namespace nvmond
