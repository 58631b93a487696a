#pragma once
// What a scrape reads. Pollers publish each device's families as an immutable
// snapshot; a scrape only copies shared_ptrs under a short lock and merges.
// No scrape ever waits on a device.
//
// A snapshot is exposition text, rendered by its source when it publishes
// (once per poll), so a scrape concatenates pre-rendered text instead of
// copying and serialising every series: at 64 drives that is the difference
// between milliseconds and a fraction of one. Collect() reads the text back
// into prometheus-cpp's types for code that inspects what is published.
//
// A drive's poller publishes its typed summary in the same snapshot: the
// control socket and the soak scheduler read that, never the families.
#include <prometheus/collectable.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <optional>
#include <vector>

#include "polling/drive_summary.hpp"
#include "metrics/rendered_families.hpp"

namespace nvmond {

class PublishedMetrics final : public prometheus::Collectable {
 public:
  using Families = std::vector<prometheus::MetricFamily>;
  // Replaces what `key` published before, its drive summary included (a
  // source that is no identified drive has none). Thread-safe.
  void publish(const std::string& key, RenderedFamilies families, std::optional<DriveSummary> drive = std::nullopt);
  // The same for typed families (rendered here).
  void publish(const std::string& key, const Families& families, std::optional<DriveSummary> drive = std::nullopt);
  // Drops a source that is gone (a removed device, a finished job).
  void remove(const std::string& key);
  std::vector<prometheus::MetricFamily> Collect() const override;
  // One merged family's text, shared with the cache that made it (a scrape
  // sends it without copying it), and its fingerprint: a number that names
  // these bytes, unique in the process, the same as long as no source's
  // slice of the family changed. Equal fingerprints are equal text, so the
  // gzip cache knows a family it compressed before without reading it.
  struct FamilyText {
    std::shared_ptr<const std::string> text;
    std::uint64_t fingerprint = 0;
  };
  // The text exposition of everything published, family by family in name
  // order: concatenated, exactly what prometheus::TextSerializer makes of
  // Collect(). Thread-safe.
  std::vector<FamilyText> render_families() const;
  // The same concatenated onto `out`.
  void render(std::string& out) const;
  // Families the last render() gathered from the snapshots again rather than
  // copying as the render before made them: for tests.
  std::size_t last_rebuilt() const {
    std::lock_guard lock(render_mu_);
    return last_rebuilt_;
  }
  // The summary of every published drive, sorted by serial; one per serial
  // (an answering source before one that is down). Thread-safe.
  std::vector<DriveSummary> drives() const;

 private:
  struct Snapshot {
    RenderedFamilies text;
    std::optional<DriveSummary> drive;
    // Each family's name as a number (family_ids_), so a scrape merges the
    // drives' families without reading or hashing a name: at 256 drives
    // those names, scattered over 256 snapshots, were a third of a scrape.
    std::vector<std::uint32_t> ids;
    // Each family's text as a number: the previous snapshot's number when
    // the source published the same bytes for that family again, a new one
    // otherwise. Equal numbers are equal text, so a scrape knows which
    // merged families it rendered before without comparing any text.
    std::vector<std::uint64_t> versions;
  };
  // A family as the last scrape merged it, by family id: the versions of
  // its sources' slices in source order, and the text they made.
  struct MergedText {
    std::vector<std::uint64_t> versions;
    FamilyText text;
    std::uint64_t seen = 0;  // the render that last used it
  };
  // What is published now, and how many family names have an id.
  std::vector<std::shared_ptr<const Snapshot>> held(std::size_t* name_count = nullptr) const;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Snapshot>> sources_;
  // Every family name ever published; a few hundred at most.
  std::unordered_map<std::string, std::uint32_t> family_ids_;
  std::uint64_t next_version_ = 1;
  // Scrapes render one at a time through this cache: between two scrapes
  // most families are the same text (no drive's value in them changed), and
  // sharing a family's string is far cheaper than gathering it again from a
  // slice in each of 256 snapshots. A changed family gets a new string, so
  // a response still being sent keeps the text it was given.
  mutable std::mutex render_mu_;
  mutable std::unordered_map<std::uint32_t, MergedText> merged_;
  mutable std::uint64_t renders_ = 0;
  mutable std::size_t last_rebuilt_ = 0;
};

}  // namespace nvmond
