#pragma once
// How every published family is declared and built from plain data.
//
// A family is declared once, as a constant `Family` (name, type, help) next
// to the code that fills it; a MetricSet collects series into families by
// name and hands back a plain vector the scrape path only copies. Health,
// analytics, workloads and the soak runs all build their families here.
// Nothing checks that a name is declared only once: a MetricSet keeps the
// type and help of the first declaration it sees for a name.
//
// The daemon's own live instruments (nvmond_build_info, the store writer's
// and the HTTP server's counters) are not built here: they are prometheus-cpp
// Registry metrics, updated in place where the event happens and collected
// at scrape time beside the published snapshots.
//
// Not thread-safe: one MetricSet per rendering, on one thread.
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nvmond {

using Labels = std::vector<prometheus::ClientMetric::Label>;

// `base` plus one more label, appended (label order is exposition order).
Labels with(Labels base, std::string name, std::string value);

// A family's identity. Declare as a constant:
//   constexpr Family kUp{"nvme_up", Family::gauge, "1 if ..."};
struct Family {
  static constexpr auto gauge = prometheus::MetricType::Gauge;
  static constexpr auto counter = prometheus::MetricType::Counter;
  static constexpr auto histogram = prometheus::MetricType::Histogram;
  static constexpr auto summary = prometheus::MetricType::Summary;

  const char* name;
  prometheus::MetricType type;
  const char* help;
};

class MetricSet {
 public:
  // by_name: families sorted by name, the order a merged scrape has.
  // as_declared: in the order of declare(), then of each family's first
  // series; for renderers whose table order is their exposition order.
  enum class Order { by_name, as_declared };
  explicit MetricSet(Order order = Order::by_name) : order_(order) {}

  // Fixes the family's place (Order::as_declared) before it has series.
  void declare(const Family& family);
  // One sample of a gauge, counter or untyped family: `value` lands where
  // the family's type says. Histograms and summaries use add_series().
  void add(const Family& family, Labels labels, double value);
  // One series of any type, filled by the caller.
  void add_series(const Family& family, prometheus::ClientMetric series);
  // The families that have at least one series; empties the set.
  std::vector<prometheus::MetricFamily> take();

 private:
  prometheus::MetricFamily& family(const Family& f);
  Order order_;
  std::vector<prometheus::MetricFamily> families_;
  // Found by the declaration's name without building a string: add() runs
  // for every series of every poll.
  std::map<std::string, std::size_t, std::less<>> index_;
};

// Merges families of the same name coming from different devices/sources
// into one (the exposition format wants each name once).
std::vector<prometheus::MetricFamily> merge_families(
    const std::vector<const std::vector<prometheus::MetricFamily>*>& parts);

}  // namespace nvmond
