#include "http/http_metrics.hpp"

#include <string>

namespace nvmond::http {
namespace {

const char* reason_label(DropReason r) {
  switch (r) {
    case DropReason::evicted: return "evicted";
    case DropReason::timeout: return "timeout";
    case DropReason::tls: return "tls";
    case DropReason::shutdown: return "shutdown";
  }
  return "unknown";
}

}  // namespace

HttpMetrics::HttpMetrics(prometheus::Registry& registry)
    : requests_(prometheus::BuildCounter()
                    .Name("nvmond_http_requests_total")
                    .Help("HTTP requests answered by the metrics endpoint, by status code.")
                    .Register(registry)),
      duration_(prometheus::BuildHistogram()
                    .Name("nvmond_http_request_duration_seconds")
                    .Help("Time from a request's complete head to the last byte of its response.")
                    .Register(registry)
                    // Few buckets (each is a series in every daemon of a fleet), dense
                    // around the 10 ms a scrape should take.
                    .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5,
                                                                     2.5})),
      open_(prometheus::BuildGauge()
                .Name("nvmond_http_connections")
                .Help("Open connections to the metrics endpoint.")
                .Register(registry)
                .Add({})),
      dropped_(prometheus::BuildCounter()
                   .Name("nvmond_http_connections_dropped_total")
                   .Help("Connections the endpoint closed itself, by reason: evicted (oldest waiting "
                         "connection at the connection cap), timeout, tls (failed handshake or plain "
                         "HTTP to a TLS listener).")
                   .Register(registry)),
      checks_(prometheus::BuildCounter()
                  .Name("nvmond_http_auth_checks_total")
                  .Help("Password checks (bcrypt) of basic-auth credentials not already remembered, by "
                        "result: accepted or rejected.")
                  .Register(registry)),
      checks_accepted_(checks_.Add({{"result", "accepted"}})),
      checks_rejected_(checks_.Add({{"result", "rejected"}})),
      refused_(prometheus::BuildCounter()
                   .Name("nvmond_http_auth_refused_total")
                   .Help("Requests with new basic-auth credentials answered without a password check, by "
                         "reason: rate_limited (429, the client address used up its allowance of failed "
                         "checks), busy (503, the queue of checks was full).")
                   .Register(registry)),
      refused_rate_limited_(refused_.Add({{"reason", "rate_limited"}})),
      refused_busy_(refused_.Add({{"reason", "busy"}})) {
  for (DropReason r : {DropReason::evicted, DropReason::timeout, DropReason::tls}) {
    dropped_.Add({{"reason", reason_label(r)}});
  }
}

void HttpMetrics::request(int status, double seconds) {
  auto it = by_status_.find(status);
  if (it == by_status_.end()) {
    it = by_status_.emplace(status, &requests_.Add({{"code", std::to_string(status)}})).first;
  }
  it->second->Increment();
  duration_.Observe(seconds);
}

void HttpMetrics::dropped(DropReason reason) {
  if (reason == DropReason::shutdown) return;
  dropped_.Add({{"reason", reason_label(reason)}}).Increment();
}

}  // namespace nvmond::http
