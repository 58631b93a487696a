#include "daemon/metrics_endpoint.hpp"

#include "core/build_info.hpp"
#include "metrics/exposition_text.hpp"

namespace nvmond {
namespace {

// The text exposition format's content type, as Prometheus asks for it.
constexpr const char* kExpositionType = "text/plain; version=0.0.4; charset=utf-8";

std::string landing_page() {
  return std::string("<!DOCTYPE html>\n<html><head><title>nvmond</title></head><body>\n<h1>nvmond ") +
         build::kVersion +
         "</h1>\n<p>NVMe health, wear and thermal-throttling exporter.</p>\n"
         "<p><a href=\"metrics\">Metrics</a></p>\n</body></html>\n";
}

}  // namespace

MetricsEndpoint::MetricsEndpoint(std::shared_ptr<prometheus::Registry> self,
                                 std::shared_ptr<PublishedMetrics> published)
    : self_(std::move(self)), published_(std::move(published)) {}

std::string MetricsEndpoint::exposition(std::vector<std::size_t>* family_ends) const {
  std::string out;
  for (const auto& family : self_->Collect()) {
    append_family_header(out, family);
    append_family_samples(out, family);
    if (family_ends) family_ends->push_back(out.size());
  }
  published_->render(out, family_ends);
  return out;
}

http::Response MetricsEndpoint::operator()(const http::Request& req) const {
  auto path = req.path();
  bool known = path == "/metrics" || path == "/";
  if (!known) return http::Response::text(404, "Not Found: nvmond serves /metrics\n");
  if (req.method != "GET" && req.method != "HEAD") {
    auto r = http::Response::text(405, "Method Not Allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  http::Response r;
  if (path == "/metrics") {
    r.headers.emplace_back("Content-Type", kExpositionType);
    // Cut at families: most do not change between two scrapes, and a gzip
    // scrape then compresses only those that did.
    r.body = exposition(&r.segment_ends);
  } else {
    r.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
    r.body = landing_page();
  }
  return r;
}

}  // namespace nvmond
