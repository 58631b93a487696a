#pragma once
// The routes of nvmond's HTTP endpoint: GET/HEAD /metrics (the daemon's own
// registry and every published snapshot, in the text exposition format), a
// landing page at /, 404 elsewhere and 405 for other methods. Runs on the
// HTTP server's thread and reads only published values.
#include <prometheus/registry.h>

#include <memory>
#include <string>
#include <vector>

#include "http/request_parser.hpp"
#include "http/response.hpp"
#include "polling/published_metrics.hpp"

namespace nvmond {

class MetricsEndpoint {
 public:
  MetricsEndpoint(std::shared_ptr<prometheus::Registry> self, std::shared_ptr<PublishedMetrics> published);

  http::Response operator()(const http::Request& req) const;
  // The whole exposition text, family by family (concatenated: the body).
  std::vector<http::BodyPiece> exposition() const;

 private:
  std::shared_ptr<prometheus::Registry> self_;
  std::shared_ptr<PublishedMetrics> published_;
};

}  // namespace nvmond
