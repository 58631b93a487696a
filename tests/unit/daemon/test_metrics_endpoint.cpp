// The exposition a scrape gets: pre-rendered snapshots give exactly the text
// the serializer gives for the merged families; routes and methods.
#include <gtest/gtest.h>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "metrics/metric_set.hpp"
#include "daemon/metrics_endpoint.hpp"
#include "polling/published_metrics.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

PublishedMetrics::Families drive(const std::string& serial, double temp) {
  MetricSet m;
  m.add({"nvme_up", Family::gauge, "1 if the last poll succeeded."}, {{"serial", serial}}, 1);
  m.add({"nvme_temperature_celsius", Family::gauge, "Temperature."}, {{"serial", serial}, {"sensor", "composite"}},
        temp);
  m.add({"nvme_data_written_bytes_total", Family::counter, "Written."}, {{"serial", serial}}, 1.5e12);
  return m.take();
}

TEST(PublishedMetrics, RendersWhatTheSerializerMakesOfTheMergedFamilies) {
  PublishedMetrics p;
  p.publish("b", drive("SN-B", 41.25));
  p.publish("a", drive("SN-A", 38));
  MetricSet job;
  job.add({"nvmond_workload_running", Family::gauge, "1 while the job runs."}, {{"workload", "w"}}, 1);
  job.add({"nvme_up", Family::gauge, "other help"}, {{"serial", "SN-C"}}, 0);  // a family shared with the drives
  p.publish("job:w", job.take());
  std::string rendered;
  p.render(rendered);
  EXPECT_EQ(rendered, prometheus::TextSerializer().Serialize(p.Collect()));
  EXPECT_NE(rendered.find("nvme_up{serial=\"SN-C\"} 0\n"), std::string::npos);
  p.remove("a");
  rendered.clear();
  p.render(rendered);
  EXPECT_EQ(rendered, prometheus::TextSerializer().Serialize(p.Collect()));
  EXPECT_EQ(rendered.find("SN-A"), std::string::npos);
}

// A scrape copies a family as the last one rendered it when no source's
// slice of it changed, and gathers it again when one did: a value that
// changed is never served stale, and an unchanged family is not rebuilt.
TEST(PublishedMetrics, ARenderRebuildsOnlyTheFamiliesWhoseTextChanged) {
  PublishedMetrics p;
  p.publish("a", drive("SN-A", 38));
  p.publish("b", drive("SN-B", 41));
  std::string first;
  p.render(first);
  EXPECT_EQ(p.last_rebuilt(), 3u);
  // Republished with the same text: nothing to rebuild.
  p.publish("a", drive("SN-A", 38));
  std::string same;
  p.render(same);
  EXPECT_EQ(same, first);
  EXPECT_EQ(p.last_rebuilt(), 0u);
  // One temperature changed: only that family is gathered again.
  p.publish("b", drive("SN-B", 45.5));
  std::string changed;
  p.render(changed);
  EXPECT_EQ(p.last_rebuilt(), 1u);
  EXPECT_EQ(changed, prometheus::TextSerializer().Serialize(p.Collect()));
  EXPECT_NE(changed.find("serial=\"SN-B\",sensor=\"composite\"} 45.5\n"), std::string::npos) << changed;
  // A source that goes away takes its series out of every family.
  p.remove("a");
  std::string without;
  p.render(without);
  EXPECT_EQ(without.find("SN-A"), std::string::npos);
  EXPECT_EQ(without, prometheus::TextSerializer().Serialize(p.Collect()));
}

// A scrape shares a family's text with the cache instead of copying it, and
// names it by a fingerprint made when the family was merged: unchanged, the
// same string and number; changed, new ones, while text already handed to a
// response stays as it was.
TEST(PublishedMetrics, AScrapeSharesUnchangedFamiliesAndNamesThemByFingerprint) {
  PublishedMetrics p;
  p.publish("a", drive("SN-A", 38));
  p.publish("b", drive("SN-B", 41));
  const auto first = p.render_families();
  ASSERT_EQ(first.size(), 3u);
  p.publish("a", drive("SN-A", 38));
  const auto same = p.render_families();
  ASSERT_EQ(same.size(), 3u);
  for (std::size_t i = 0; i < same.size(); ++i) {
    EXPECT_EQ(same[i].text, first[i].text) << i;  // the same string, not a copy
    EXPECT_EQ(same[i].fingerprint, first[i].fingerprint) << i;
  }
  p.publish("b", drive("SN-B", 45.5));
  const auto changed = p.render_families();
  std::size_t renamed = 0;
  for (std::size_t i = 0; i < changed.size(); ++i) {
    if (changed[i].fingerprint == first[i].fingerprint) {
      EXPECT_EQ(changed[i].text, first[i].text);
      continue;
    }
    ++renamed;
    EXPECT_NE(changed[i].text, first[i].text);
    EXPECT_NE(changed[i].text->find("45.5"), std::string::npos);
    EXPECT_EQ(first[i].text->find("45.5"), std::string::npos);  // what a response holds is unchanged
  }
  EXPECT_EQ(renamed, 1u);
  // Fingerprints are unique in the process: another instance's never match.
  PublishedMetrics q;
  q.publish("a", drive("SN-A", 38));
  for (const auto& f : q.render_families()) {
    for (const auto& g : changed) EXPECT_NE(f.fingerprint, g.fingerprint);
  }
}

http::Request request(std::string method, std::string target) {
  http::Request r;
  r.method = std::move(method);
  r.target = std::move(target);
  return r;
}

TEST(MetricsEndpoint, ServesMetricsALandingPageAndNothingElse) {
  auto self = std::make_shared<prometheus::Registry>();
  auto published = std::make_shared<PublishedMetrics>();
  published->publish("a", drive("SN-A", 40));
  MetricsEndpoint e(self, published);
  auto m = e(request("GET", "/metrics"));
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.whole_body().find("nvme_temperature_celsius{serial=\"SN-A\",sensor=\"composite\"} 40"),
            std::string::npos);
  EXPECT_EQ(e(request("HEAD", "/metrics?x")).status, 200);
  auto landing = e(request("GET", "/"));
  EXPECT_EQ(landing.status, 200);
  EXPECT_NE(landing.body.find("href=\"metrics\""), std::string::npos);
  EXPECT_EQ(e(request("GET", "/metric")).status, 404);
  auto post = e(request("POST", "/metrics"));
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.headers.back(), (std::pair<std::string, std::string>{"Allow", "GET, HEAD"}));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
