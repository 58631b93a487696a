#pragma once
// How every published family is declared and built from plain data.
//
// A family is declared once, as a constant `Family` (name, type, help) next
// to the code that fills it; a MetricSet collects series into families by
// name and renders them to exposition text as they are added. Health,
// analytics, workloads and the soak runs all build their families here.
// Nothing checks that a name is declared only once: a MetricSet keeps the
// type and help of the first declaration it sees for a name.
//
// A set that is kept and refilled (a drive's poller keeps one per kind of
// family) reuses its family table and text buffers: a poll then allocates
// nothing per series. The drive's identity labels are rendered once, as a
// LabelPrefix, and every series of the drive starts with them.
//
// The daemon's own live instruments (nvmond_build_info, the store writer's
// and the HTTP server's counters) are not built here: they are prometheus-cpp
// Registry metrics, updated in place where the event happens and collected
// at scrape time beside the published snapshots.
//
// Not thread-safe: one MetricSet per rendering, on one thread.
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "metrics/rendered_families.hpp"

namespace nvmond {

using Labels = std::vector<prometheus::ClientMetric::Label>;

// `base` plus one more label, appended (label order is exposition order).
Labels with(Labels base, std::string name, std::string value);

// Labels rendered to exposition text once (`serial="S1"`), for the series
// of one source that all start with them.
class LabelPrefix {
 public:
  // A factory, and no constructor a braced list could call: `{}` or
  // `{{"serial", s}}` passed to add() must mean Labels, never this.
  static LabelPrefix of(const Labels& labels);
  std::string_view text() const { return text_; }
  bool empty() const { return text_.empty(); }

 private:
  struct Rendered {};
  LabelPrefix(Rendered, std::string text) : text_(std::move(text)) {}
  std::string text_;
};

// A family's identity. Declare as a constant:
//   constexpr Family kUp{"nvme_up", Family::gauge, "1 if ..."};
// Its strings must outlive the MetricSets it is added to (string literals).
struct Family {
  static constexpr auto gauge = prometheus::MetricType::Gauge;
  static constexpr auto counter = prometheus::MetricType::Counter;
  static constexpr auto histogram = prometheus::MetricType::Histogram;
  static constexpr auto summary = prometheus::MetricType::Summary;

  const char* name;
  prometheus::MetricType type;
  const char* help;
};

class MetricSet {
 public:
  // by_name: families sorted by name, the order a merged scrape has.
  // as_declared: in the order of declare(), then of each family's first
  // series; for renderers whose table order is their exposition order.
  enum class Order { by_name, as_declared };
  explicit MetricSet(Order order = Order::by_name) : order_(order) {}

  // Fixes the family's place (Order::as_declared) before it has series.
  void declare(const Family& family);
  // One sample of a gauge, counter or untyped family: `value` lands where
  // the family's type says. Histograms and summaries use add_series().
  void add(const Family& family, const Labels& labels, double value);
  // The same with the labels `id`, then the `extra` ones after them:
  //   out.add(kTemperature, id, {{"sensor", "composite"}}, 41);
  using ExtraLabels = std::initializer_list<std::pair<std::string_view, std::string_view>>;
  void add(const Family& family, const LabelPrefix& id, double value);
  void add(const Family& family, const LabelPrefix& id, ExtraLabels extra, double value);
  // One series of any type, filled by the caller.
  void add_series(const Family& family, const prometheus::ClientMetric& series);
  // Appends the families that have at least one series to `out`; empties
  // the set (keeping its buffers for the next round).
  void render_to(RenderedFamilies& out);
  // The same families read back as prometheus-cpp types; empties the set.
  // For code that inspects families (tests, nvmonctl), not for publishing.
  std::vector<prometheus::MetricFamily> take();

 private:
  struct Slot {
    const char* name;
    const char* help;
    prometheus::MetricType type;
    const std::string* header;  // rendered once in the process (shared_header)
    std::string samples;        // sample lines added since the last render
  };
  Slot& slot(const Family& f);
  // One sample line of a single-value family: `prefix` (rendered labels),
  // then the `extra` labels, then the value.
  void add_line(const Family& f, std::string_view prefix, ExtraLabels extra, double value);
  Order order_;
  std::vector<Slot> slots_;
  // A family is found by the address of its declared name first (the same
  // constant every poll), by its name when that address is new.
  std::unordered_map<const char*, std::size_t> by_address_;
  std::map<std::string_view, std::size_t, std::less<>> by_name_;
  std::vector<std::size_t> render_order_;  // rebuilt when a family is added
};

// Merges families of the same name coming from different devices/sources
// into one (the exposition format wants each name once).
std::vector<prometheus::MetricFamily> merge_families(
    const std::vector<const std::vector<prometheus::MetricFamily>*>& parts);

}  // namespace nvmond
