#include "daemon/published_metrics.hpp"

#include "metrics/exposition_text.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

void PublishedMetrics::publish(const std::string& key, Families families, std::optional<DriveSummary> drive) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->drive = std::move(drive);
  snapshot->text.reserve(families.size());
  for (const auto& fam : families) {
    RenderedFamily& r = snapshot->text.emplace_back();
    r.name = fam.name;
    append_family_header(r.header, fam);
    append_family_samples(r.samples, fam);
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

void PublishedMetrics::render(std::string& out, std::vector<std::size_t>* family_ends) const {
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
    if (family_ends) family_ends->push_back(out.size());
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
