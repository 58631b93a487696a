#pragma once
// nvmond's self-telemetry about its HTTP endpoint (README, "Daemon
// self-telemetry"). Counters are prometheus-cpp metrics: atomic, so the
// server thread updates them while a scrape on the same thread reads them.
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>

#include "daemon/http/connection_table.hpp"

namespace nvmond::http {

class HttpMetrics {
 public:
  explicit HttpMetrics(prometheus::Registry& registry);

  // One answered request: its status and the time from the end of its head
  // to the last byte written.
  void request(int status, double seconds);
  void opened() { open_.Increment(); }
  void closed() { open_.Decrement(); }
  void dropped(DropReason reason);

 private:
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Histogram& duration_;
  prometheus::Gauge& open_;
  prometheus::Family<prometheus::Counter>& dropped_;
  std::map<int, prometheus::Counter*> by_status_;
};

}  // namespace nvmond::http
