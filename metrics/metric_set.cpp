#include "metrics/metric_set.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "metrics/exposition_parse.hpp"
#include "metrics/exposition_text.hpp"

namespace nvmond {
namespace {

void append_name_and_value(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += "=\"";
  append_label_value(out, value);
  out += '"';
}

}  // namespace

Labels with(Labels base, std::string name, std::string value) {
  base.push_back({std::move(name), std::move(value)});
  return base;
}

LabelPrefix LabelPrefix::of(const Labels& labels) {
  std::string text;
  for (const auto& l : labels) {
    if (!text.empty()) text += ',';
    append_name_and_value(text, l.name, l.value);
  }
  return LabelPrefix(Rendered{}, std::move(text));
}

namespace {

// A family's "# HELP"/"# TYPE" lines, rendered once in the process: every
// drive's sets declare the same families, and a copy in each set was some
// 3 MB of heap at 256 drives. Entries live as long as the process; there are
// as many as declared families (a few hundred).
const std::string& shared_header(const Family& f) {
  static std::mutex mu;
  static std::map<std::tuple<std::string, std::string, prometheus::MetricType>, std::string> headers;
  std::lock_guard lock(mu);
  auto [it, inserted] = headers.try_emplace({f.name, f.help, f.type});
  if (inserted) it->second = RenderedFamilies::render_header(f.name, f.help, f.type);
  return it->second;
}

}  // namespace

MetricSet::Slot& MetricSet::slot(const Family& f) {
  if (auto it = by_address_.find(f.name); it != by_address_.end()) return slots_[it->second];
  std::size_t index = slots_.size();
  if (auto it = by_name_.find(std::string_view(f.name)); it != by_name_.end()) {
    index = it->second;
  } else {
    slots_.push_back(Slot{f.name, f.help, f.type, &shared_header(f), {}});
    by_name_.emplace(f.name, index);
    render_order_.clear();
  }
  by_address_.emplace(f.name, index);
  return slots_[index];
}

void MetricSet::declare(const Family& f) { slot(f); }

void MetricSet::add_line(const Family& f, std::string_view prefix, ExtraLabels extra, double value) {
  if (f.type == prometheus::MetricType::Histogram || f.type == prometheus::MetricType::Summary) {
    // A programming error, not a runtime condition.
    throw std::logic_error(std::string("MetricSet::add: ") + f.name + " needs add_series()");
  }
  std::string& out = slot(f).samples;
  out += f.name;
  if (!prefix.empty() || extra.size() != 0) {
    out += '{';
    out += prefix;
    bool comma = !prefix.empty();
    for (const auto& [name, v] : extra) {
      if (comma) out += ',';
      comma = true;
      append_name_and_value(out, name, v);
    }
    out += '}';
  }
  out += ' ';
  append_value(out, value);
  out += '\n';
}

void MetricSet::add(const Family& f, const Labels& labels, double value) {
  add_line(f, LabelPrefix::of(labels).text(), {}, value);
}

void MetricSet::add(const Family& f, const LabelPrefix& id, double value) { add_line(f, id.text(), {}, value); }

void MetricSet::add(const Family& f, const LabelPrefix& id, ExtraLabels extra, double value) {
  add_line(f, id.text(), extra, value);
}

void MetricSet::add_series(const Family& f, const prometheus::ClientMetric& series) {
  append_series(slot(f).samples, f.name, f.type, series);
}

void MetricSet::render_to(RenderedFamilies& out) {
  if (render_order_.size() != slots_.size()) {
    render_order_.resize(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i) render_order_[i] = i;
    if (order_ == Order::by_name) {
      std::sort(render_order_.begin(), render_order_.end(), [&](std::size_t a, std::size_t b) {
        return std::string_view(slots_[a].name) < std::string_view(slots_[b].name);
      });
    }
  }
  // One allocation (if any) for what this round appends, not a growth series.
  std::size_t bytes = 0, families = 0;
  for (const auto& s : slots_) {
    if (s.samples.empty()) continue;
    bytes += s.header->size() + s.samples.size();
    ++families;
  }
  out.reserve(out.text().size() + bytes, out.families().size() + families);
  for (const std::size_t i : render_order_) {
    Slot& s = slots_[i];
    if (s.samples.empty()) continue;
    out.begin_family(*s.header, std::string_view(s.name).size()) += s.samples;
    out.end_family();
    s.samples.clear();
  }
}

std::vector<prometheus::MetricFamily> MetricSet::take() {
  RenderedFamilies rendered;
  render_to(rendered);
  return parse_families(rendered);
}

std::vector<prometheus::MetricFamily> merge_families(
    const std::vector<const std::vector<prometheus::MetricFamily>*>& parts) {
  std::map<std::string, prometheus::MetricFamily> by_name;
  for (const auto* part : parts) {
    for (const auto& fam : *part) {
      auto [it, inserted] = by_name.try_emplace(fam.name, fam);
      if (!inserted) {
        auto& dst = it->second.metric;
        dst.insert(dst.end(), fam.metric.begin(), fam.metric.end());
      }
    }
  }
  std::vector<prometheus::MetricFamily> out;
  out.reserve(by_name.size());
  for (auto& [name, fam] : by_name) out.push_back(std::move(fam));
  return out;
}

}  // namespace nvmond
