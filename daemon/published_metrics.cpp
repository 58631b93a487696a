#include "daemon/published_metrics.hpp"

#include <prometheus/text_serializer.h>

#include "metrics/metric_set.hpp"

namespace nvmond {
namespace {

// The serializer's text for one family, split after its comment lines so
// that families of the same name from several sources share one header.
std::vector<std::pair<std::string, std::string>> render_families(const PublishedMetrics::Families& families) {
  prometheus::TextSerializer serializer;
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(families.size());
  for (const auto& fam : families) {
    std::string text = serializer.Serialize({fam});
    std::size_t pos = 0;
    while (pos < text.size() && text.compare(pos, 2, "# ") == 0) {
      auto nl = text.find('\n', pos);
      pos = nl == std::string::npos ? text.size() : nl + 1;
    }
    out.emplace_back(text.substr(0, pos), text.substr(pos));
  }
  return out;
}

}  // namespace

void PublishedMetrics::publish(const std::string& key, Families families, std::optional<DriveSummary> drive) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->drive = std::move(drive);
  auto rendered = render_families(families);
  for (std::size_t i = 0; i < families.size(); ++i) {
    snapshot->text.push_back({families[i].name, std::move(rendered[i].first), std::move(rendered[i].second)});
  }
  snapshot->families = std::move(families);
  std::lock_guard lock(mu_);
  sources_[key] = std::move(snapshot);
}

void PublishedMetrics::remove(const std::string& key) {
  std::lock_guard lock(mu_);
  sources_.erase(key);
}

std::vector<std::shared_ptr<const PublishedMetrics::Snapshot>> PublishedMetrics::held() const {
  std::vector<std::shared_ptr<const Snapshot>> out;
  std::lock_guard lock(mu_);
  out.reserve(sources_.size());
  for (const auto& [key, snap] : sources_) out.push_back(snap);
  return out;
}

std::vector<prometheus::MetricFamily> PublishedMetrics::Collect() const {
  const auto snapshots = held();
  std::vector<const Families*> parts;
  parts.reserve(snapshots.size());
  for (const auto& h : snapshots) parts.push_back(&h->families);
  return merge_families(parts);
}

void PublishedMetrics::render(std::string& out) const {
  const auto snapshots = held();
  // Family name -> its first header and every source's samples, in source
  // order: the order merge_families() gives the serializer.
  struct Merged {
    const std::string* header = nullptr;
    std::vector<const std::string*> samples;
  };
  std::map<std::string_view, Merged> by_name;
  std::size_t size = 0;
  for (const auto& snap : snapshots) {
    for (const auto& f : snap->text) {
      auto& m = by_name[f.name];
      if (m.header == nullptr) {
        m.header = &f.header;
        size += f.header.size();
      }
      m.samples.push_back(&f.samples);
      size += f.samples.size();
    }
  }
  out.reserve(out.size() + size);
  for (const auto& [name, m] : by_name) {
    out += *m.header;
    for (const auto* s : m.samples) out += *s;
  }
}

std::vector<DriveSummary> PublishedMetrics::drives() const {
  std::map<std::string, const DriveSummary*> by_serial;
  for (const auto& snap : held()) {
    if (!snap->drive) continue;
    auto [it, inserted] = by_serial.try_emplace(snap->drive->serial, &*snap->drive);
    if (!inserted && !it->second->up && snap->drive->up) it->second = &*snap->drive;
  }
  std::vector<DriveSummary> out;
  out.reserve(by_serial.size());
  for (const auto& [serial, d] : by_serial) out.push_back(*d);
  return out;
}

}  // namespace nvmond
