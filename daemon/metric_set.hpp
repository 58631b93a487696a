#pragma once
// Builds prometheus MetricFamily values from plain data. Families are keyed by
// name so a helper can add series to the same family from several places, and
// the result is a plain vector the scrape path only copies.
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <map>
#include <string>
#include <vector>

namespace nvmond {

using Labels = std::vector<prometheus::ClientMetric::Label>;

class MetricSet {
 public:
  void gauge(const std::string& name, const std::string& help, const Labels& labels, double value);
  void counter(const std::string& name, const std::string& help, const Labels& labels, double value);
  std::vector<prometheus::MetricFamily> take();

 private:
  prometheus::MetricFamily& family(const std::string& name, const std::string& help,
                                   prometheus::MetricType type);
  std::map<std::string, prometheus::MetricFamily> families_;
};

// Merges families of the same name coming from different devices/sources
// into one (the exposition format wants each name once).
std::vector<prometheus::MetricFamily> merge_families(
    const std::vector<const std::vector<prometheus::MetricFamily>*>& parts);

}  // namespace nvmond
