#pragma once
// nvmond's self-telemetry about its HTTP endpoint (docs/metrics.md, "Daemon
// self-telemetry"). Counters are prometheus-cpp metrics: atomic, so the
// server thread updates them while a scrape on the same thread reads them.
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>

#include "http/connection_table.hpp"

namespace nvmond::http {

// Why new credentials were answered without a password check.
enum class AuthRefusal {
  rate_limited,  // 429: the client address used up its failed-check allowance
  busy           // 503: the queue of checks was full
};

class HttpMetrics {
 public:
  explicit HttpMetrics(prometheus::Registry& registry);

  // One answered request: its status and the time from the end of its head
  // to the last byte written.
  void request(int status, double seconds);
  void opened() { open_.Increment(); }
  void closed() { open_.Decrement(); }
  void dropped(DropReason reason);
  // One bcrypt check finished: it accepted the credentials or not.
  void auth_checked(bool accepted) { (accepted ? checks_accepted_ : checks_rejected_).Increment(); }
  void auth_refused(AuthRefusal reason) {
    (reason == AuthRefusal::rate_limited ? refused_rate_limited_ : refused_busy_).Increment();
  }

 private:
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Histogram& duration_;
  prometheus::Gauge& open_;
  prometheus::Family<prometheus::Counter>& dropped_;
  std::map<int, prometheus::Counter*> by_status_;
  prometheus::Family<prometheus::Counter>& checks_;
  prometheus::Counter& checks_accepted_;
  prometheus::Counter& checks_rejected_;
  prometheus::Family<prometheus::Counter>& refused_;
  prometheus::Counter& refused_rate_limited_;
  prometheus::Counter& refused_busy_;
};

}  // namespace nvmond::http
