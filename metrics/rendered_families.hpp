#pragma once
// Families already rendered to exposition text: what a source publishes and
// a scrape concatenates. One buffer holds every family's header and samples
// back to back; each family is a slice of it, found by its name when the
// scrape merges families of one name from several sources.
//
// One buffer, not a string per family or a ClientMetric per series: a
// drive's poll renders some 300 series, and an allocation for each of them
// would be most of what a poll costs.
#include <prometheus/metric_family.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nvmond {

class RenderedFamilies {
 public:
  // Offsets into text(): the name (inside the "# TYPE" line), the header
  // [header, samples) and the samples [samples, end).
  struct Slice {
    std::size_t name = 0;
    std::size_t name_size = 0;
    std::size_t header = 0;
    std::size_t samples = 0;
    std::size_t end = 0;
  };

  // Writes a family's header; sample lines then go to text() until
  // end_family(). A family that got no samples is dropped there.
  std::string& begin_family(std::string_view name, std::string_view help, prometheus::MetricType type);
  // The same with the header already rendered (by render_header()).
  std::string& begin_family(const std::string& header, std::size_t name_size);
  // A family's "# HELP"/"# TYPE" lines, to render once and reuse.
  static std::string render_header(std::string_view name, std::string_view help, prometheus::MetricType type);
  void end_family();
  // A typed family, rendered (nothing for one without series).
  void append(const prometheus::MetricFamily& family);
  // Every family of `other`, after this one's.
  void append(const RenderedFamilies& other);
  void reserve(std::size_t text_bytes, std::size_t families);
  void clear();

  const std::string& text() const { return text_; }
  const std::vector<Slice>& families() const { return families_; }
  bool empty() const { return families_.empty(); }
  std::string_view name(const Slice& f) const { return view(f.name, f.name + f.name_size); }
  std::string_view header(const Slice& f) const { return view(f.header, f.samples); }
  std::string_view samples(const Slice& f) const { return view(f.samples, f.end); }
  // The family's header and samples together.
  std::string_view whole(const Slice& f) const { return view(f.header, f.end); }

 private:
  std::string_view view(std::size_t from, std::size_t to) const { return {text_.data() + from, to - from}; }
  std::string text_;
  std::vector<Slice> families_;
  bool open_ = false;
};

}  // namespace nvmond
