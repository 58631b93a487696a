#pragma once
// Renders analytics views as Prometheus families. Pure: no registry, no
// locks; the daemon publishes the result with the rest of a poll's snapshot.
//
// Every series carries serial="…". Families with no series are left out.
// Metric names and help live in one table in metrics.cpp.
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <span>
#include <vector>

#include "analytics/drive_analytics.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

// Adds the series of `views` to `out` (in an Order::as_declared set, in the
// table's order). A set kept from poll to poll renders without allocating.
void add_analytics_metrics(std::span<const AnalyticsView> views, MetricSet& out);
// The same as families, for code that inspects them.
std::vector<prometheus::MetricFamily> analytics_metric_families(std::span<const AnalyticsView> views);

}  // namespace nvmond
