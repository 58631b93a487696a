#include "daemon/metrics_endpoint.hpp"

#include "core/build_info.hpp"
#include "metrics/exposition_text.hpp"

namespace nvmond {
namespace {

// The text exposition format's content type, as Prometheus asks for it.
constexpr const char* kExpositionType = "text/plain; version=0.0.4; charset=utf-8";

std::string landing_page() {
  return std::string("<!DOCTYPE html>\n<html><head><title>nvmond</title></head><body>\n<h1>nvmond ") + build::kVersion +
         "</h1>\n<p>NVMe health, wear and thermal-throttling exporter.</p>\n"
         "<p><a href=\"metrics\">Metrics</a></p>\n</body></html>\n";
}

}  // namespace

MetricsEndpoint::MetricsEndpoint(std::shared_ptr<prometheus::Registry> self,
                                 std::shared_ptr<PublishedMetrics> published)
    : self_(std::move(self)), published_(std::move(published)) {}

std::vector<http::BodyPiece> MetricsEndpoint::exposition() const {
  // The daemon's own families change with every request (the HTTP
  // histograms count this one): rendered now, a few KiB with no fingerprint.
  auto own = std::make_shared<std::string>();
  for (const auto& family : self_->Collect()) {
    append_family_header(*own, family);
    append_family_samples(*own, family);
  }
  auto families = published_->render_families();
  std::vector<http::BodyPiece> pieces;
  pieces.reserve(families.size() + 1);
  pieces.push_back({std::move(own), 0});
  // Shared, not copied: a drive family's text is the string the cache made
  // when one of its slices changed.
  for (auto& f : families) pieces.push_back({std::move(f.text), f.fingerprint});
  return pieces;
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
    // In families: most do not change between two scrapes, and a gzip
    // scrape then compresses only those that did.
    r.pieces = exposition();
  } else {
    r.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
    r.body = landing_page();
  }
  return r;
}

}  // namespace nvmond
