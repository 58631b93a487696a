#include "daemon/published_metrics.hpp"

#include <algorithm>
#include <utility>

#include "metrics/exposition_parse.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

void PublishedMetrics::publish(const std::string& key, RenderedFamilies families,
                               std::optional<DriveSummary> drive) {
  auto snapshot = std::make_shared<Snapshot>(Snapshot{std::move(families), std::move(drive), {}});
  snapshot->ids.reserve(snapshot->text.families().size());
  std::shared_ptr<const Snapshot> previous;
  {
    std::lock_guard lock(mu_);
    for (const auto& f : snapshot->text.families()) {
      const auto name = snapshot->text.name(f);
      auto it = family_ids_.find(std::string(name));
      if (it == family_ids_.end()) {
        it = family_ids_.emplace(std::string(name), static_cast<std::uint32_t>(family_ids_.size())).first;
      }
      snapshot->ids.push_back(it->second);
    }
    previous = std::exchange(sources_[key], std::move(snapshot));
  }
  // The previous snapshot (unless a scrape still holds it) is freed here,
  // outside the lock.
}

void PublishedMetrics::publish(const std::string& key, const Families& families, std::optional<DriveSummary> drive) {
  RenderedFamilies text;
  for (const auto& fam : families) text.append(fam);
  publish(key, std::move(text), std::move(drive));
}

void PublishedMetrics::remove(const std::string& key) {
  std::lock_guard lock(mu_);
  sources_.erase(key);
}

std::vector<std::shared_ptr<const PublishedMetrics::Snapshot>> PublishedMetrics::held(std::size_t* name_count) const {
  std::vector<std::shared_ptr<const Snapshot>> out;
  std::lock_guard lock(mu_);
  if (name_count) *name_count = family_ids_.size();
  out.reserve(sources_.size());
  for (const auto& [key, snap] : sources_) out.push_back(snap);
  return out;
}

std::vector<prometheus::MetricFamily> PublishedMetrics::Collect() const {
  std::vector<Families> typed;
  for (const auto& h : held()) typed.push_back(parse_families(h->text));
  std::vector<const Families*> parts;
  parts.reserve(typed.size());
  for (const auto& t : typed) parts.push_back(&t);
  return merge_families(parts);
}

void PublishedMetrics::render(std::string& out, std::vector<std::size_t>* family_ends) const {
  std::size_t name_count = 0;
  const auto snapshots = held(&name_count);
  // Family -> its first header and every source's samples, in source
  // order: the order merge_families() gives the serializer. Found by the
  // name's id, then sorted by name once.
  struct Merged {
    std::string_view name;
    std::string_view header;
    std::vector<std::string_view> samples;
  };
  constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<Merged> merged;
  std::vector<std::size_t> slot(name_count, kNone);
  std::size_t size = 0;
  for (const auto& snap : snapshots) {
    const RenderedFamilies& text = snap->text;
    std::size_t i = 0;
    for (const auto& f : text.families()) {
      std::size_t& at = slot[snap->ids[i++]];
      if (at == kNone) {
        at = merged.size();
        merged.push_back(Merged{text.name(f), text.header(f), {}});
        merged.back().samples.reserve(snapshots.size());
        size += merged.back().header.size();
      }
      Merged& m = merged[at];
      m.samples.push_back(text.samples(f));
      size += m.samples.back().size();
    }
  }
  std::sort(merged.begin(), merged.end(), [](const Merged& a, const Merged& b) { return a.name < b.name; });
  out.reserve(out.size() + size);
  for (const auto& m : merged) {
    out += m.header;
    for (const auto s : m.samples) out += s;
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
