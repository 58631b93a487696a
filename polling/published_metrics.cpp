#include "polling/published_metrics.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string_view>
#include <utility>

#include "metrics/exposition_parse.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

void PublishedMetrics::publish(const std::string& key, RenderedFamilies families, std::optional<DriveSummary> drive) {
  auto snapshot = std::make_shared<Snapshot>(Snapshot{std::move(families), std::move(drive), {}, {}});
  const auto& slices = snapshot->text.families();
  snapshot->ids.reserve(slices.size());
  snapshot->versions.reserve(slices.size());
  std::shared_ptr<const Snapshot> previous;
  {
    std::lock_guard lock(mu_);
    auto& held = sources_[key];
    const Snapshot* prev = held.get();
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const auto name = snapshot->text.name(slices[i]);
      auto it = family_ids_.find(std::string(name));
      if (it == family_ids_.end()) {
        it = family_ids_.emplace(std::string(name), static_cast<std::uint32_t>(family_ids_.size())).first;
      }
      const std::uint32_t id = it->second;
      snapshot->ids.push_back(id);
      // The same family of the previous snapshot: at the same place unless
      // the source's families changed.
      std::optional<std::size_t> same;
      if (prev) {
        if (i < prev->ids.size() && prev->ids[i] == id) {
          same = i;
        } else {
          for (std::size_t j = 0; j < prev->ids.size() && !same; ++j) {
            if (prev->ids[j] == id) same = j;
          }
        }
      }
      const bool unchanged = same && prev->text.whole(prev->text.families()[*same]) == snapshot->text.whole(slices[i]);
      snapshot->versions.push_back(unchanged ? prev->versions[*same] : next_version_++);
    }
    previous = std::exchange(held, std::move(snapshot));
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

namespace {

// Fingerprints are unique in the process, not per instance: a server's
// gzip cache outlives a reload that replaces what it serves.
std::uint64_t next_fingerprint() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

void PublishedMetrics::render(std::string& out) const {
  const auto families = render_families();
  std::size_t size = 0;
  for (const auto& f : families) size += f.text->size();
  out.reserve(out.size() + size);
  for (const auto& f : families) out += *f.text;
}

std::vector<PublishedMetrics::FamilyText> PublishedMetrics::render_families() const {
  std::size_t name_count = 0;
  const auto snapshots = held(&name_count);
  // Family -> its first header and every source's samples, in source
  // order: the order merge_families() gives the serializer. Found by the
  // name's id, then sorted by name once.
  struct Merged {
    std::uint32_t id;
    std::string_view name;
    std::string_view header;
    std::vector<std::string_view> samples;
    std::vector<std::uint64_t> versions;
  };
  constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<Merged> merged;
  std::vector<std::size_t> slot(name_count, kNone);
  for (const auto& snap : snapshots) {
    const RenderedFamilies& text = snap->text;
    std::size_t i = 0;
    for (const auto& f : text.families()) {
      const std::uint32_t id = snap->ids[i];
      std::size_t& at = slot[id];
      if (at == kNone) {
        at = merged.size();
        merged.push_back(Merged{id, text.name(f), text.header(f), {}, {}});
        merged.back().samples.reserve(snapshots.size());
        merged.back().versions.reserve(snapshots.size());
      }
      Merged& m = merged[at];
      m.samples.push_back(text.samples(f));
      m.versions.push_back(snap->versions[i]);
      ++i;
    }
  }
  std::sort(merged.begin(), merged.end(), [](const Merged& a, const Merged& b) { return a.name < b.name; });
  std::vector<FamilyText> out;
  out.reserve(merged.size());
  std::lock_guard lock(render_mu_);
  const std::uint64_t render = ++renders_;
  last_rebuilt_ = 0;
  for (auto& m : merged) {
    MergedText& cached = merged_[m.id];
    cached.seen = render;
    // The header is the first source's, whose version covers it too.
    if (!cached.text.text || cached.versions != m.versions) {
      ++last_rebuilt_;
      std::size_t size = m.header.size();
      for (const auto s : m.samples) size += s.size();
      auto text = std::make_shared<std::string>();
      text->reserve(size);
      *text += m.header;
      for (const auto s : m.samples) *text += s;
      cached.text = {std::move(text), next_fingerprint()};
      cached.versions.swap(m.versions);
    }
    out.push_back(cached.text);
  }
  std::erase_if(merged_, [&](const auto& e) { return e.second.seen != render; });
  return out;
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
