#include "metrics/exposition_parse.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nvmond {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

[[noreturn]] void malformed(std::string_view line, const char* why) {
  throw std::invalid_argument("rendered exposition: " + std::string(why) + ": \"" + std::string(line) + "\"");
}

double parse_value(std::string_view text, std::string_view line) {
  if (text == "Nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) malformed(line, "not a value");
  return v;
}

MetricType type_of(std::string_view text) {
  if (text == "counter") return MetricType::Counter;
  if (text == "gauge") return MetricType::Gauge;
  if (text == "summary") return MetricType::Summary;
  if (text == "histogram") return MetricType::Histogram;
  return MetricType::Untyped;
}

struct Sample {
  std::string_view name;
  ClientMetric::Label extra;  // le or quantile, taken out of the labels
  std::vector<ClientMetric::Label> labels;
  double value = 0;
  std::int64_t timestamp_ms = 0;
};

// `name{a="x",b="y"} value [timestamp]`; `special` names the label that
// is not a label of the series (le, quantile).
Sample parse_sample(std::string_view line, std::string_view special) {
  Sample s;
  std::size_t i = line.find_first_of("{ ");
  if (i == std::string_view::npos) malformed(line, "no value");
  s.name = line.substr(0, i);
  if (line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      const std::size_t eq = line.find("=\"", i);
      if (eq == std::string_view::npos) malformed(line, "label without a value");
      ClientMetric::Label l;
      l.name = std::string(line.substr(i, eq - i));
      for (i = eq + 2; i < line.size() && line[i] != '"'; ++i) {
        char c = line[i];
        if (c == '\\' && i + 1 < line.size()) {
          c = line[++i];
          if (c == 'n') c = '\n';
        }
        l.value += c;
      }
      if (i >= line.size()) malformed(line, "unterminated label value");
      ++i;  // the closing quote
      if (i < line.size() && line[i] == ',') ++i;
      if (!special.empty() && l.name == special) {
        s.extra = std::move(l);
      } else {
        s.labels.push_back(std::move(l));
      }
    }
    if (i + 1 >= line.size() || line[i + 1] != ' ') malformed(line, "no value after the labels");
    i += 2;
  } else {
    ++i;
  }
  std::string_view rest = line.substr(i);
  if (const std::size_t sp = rest.find(' '); sp != std::string_view::npos) {
    s.timestamp_ms = static_cast<std::int64_t>(parse_value(rest.substr(sp + 1), line));
    rest = rest.substr(0, sp);
  }
  s.value = parse_value(rest, line);
  return s;
}

void add_sample(MetricFamily& fam, Sample s, std::string_view line) {
  const std::string_view name = fam.name;
  auto start_series = [&] {
    ClientMetric& m = fam.metric.emplace_back();
    m.label = std::move(s.labels);
    m.timestamp_ms = s.timestamp_ms;
    return &m;
  };
  switch (fam.type) {
    case MetricType::Counter: start_series()->counter.value = s.value; return;
    case MetricType::Gauge: start_series()->gauge.value = s.value; return;
    case MetricType::Untyped: start_series()->untyped.value = s.value; return;
    case MetricType::Histogram:
    case MetricType::Summary: break;
  }
  const bool histogram = fam.type == MetricType::Histogram;
  const std::string_view suffix = s.name.substr(std::min(name.size(), s.name.size()));
  if (suffix == "_count") {
    auto* m = start_series();
    (histogram ? m->histogram.sample_count : m->summary.sample_count) = static_cast<std::uint64_t>(s.value);
    return;
  }
  if (fam.metric.empty()) malformed(line, "a histogram or summary sample before its _count");
  ClientMetric& m = fam.metric.back();
  if (suffix == "_sum") {
    (histogram ? m.histogram.sample_sum : m.summary.sample_sum) = s.value;
  } else if (histogram && suffix == "_bucket") {
    m.histogram.bucket.push_back({static_cast<std::uint64_t>(s.value), parse_value(s.extra.value, line)});
  } else if (!histogram && suffix.empty()) {
    m.summary.quantile.push_back({parse_value(s.extra.value, line), s.value});
  } else {
    malformed(line, "not a sample of its family");
  }
}

MetricFamily parse_family(std::string_view header, std::string_view samples) {
  MetricFamily fam;
  for (std::size_t at = 0; at < header.size();) {
    std::size_t nl = header.find('\n', at);
    if (nl == std::string_view::npos) nl = header.size();
    const std::string_view line = header.substr(at, nl - at);
    at = nl + 1;
    if (line.starts_with("# HELP ")) {
      const std::string_view rest = line.substr(7);
      const std::size_t sp = rest.find(' ');
      fam.help = std::string(rest.substr(sp + 1));
    } else if (line.starts_with("# TYPE ")) {
      const std::string_view rest = line.substr(7);
      const std::size_t sp = rest.find(' ');
      if (sp == std::string_view::npos) malformed(line, "no type");
      fam.name = std::string(rest.substr(0, sp));
      fam.type = type_of(rest.substr(sp + 1));
    }
  }
  const std::string_view special = fam.type == MetricType::Histogram ? "le"
                                   : fam.type == MetricType::Summary ? "quantile"
                                                                     : "";
  for (std::size_t at = 0; at < samples.size();) {
    std::size_t nl = samples.find('\n', at);
    if (nl == std::string_view::npos) nl = samples.size();
    const std::string_view line = samples.substr(at, nl - at);
    at = nl + 1;
    if (line.empty()) continue;
    Sample s = parse_sample(line, special);
    if (!s.name.starts_with(fam.name)) malformed(line, "a sample of another family");
    add_sample(fam, std::move(s), line);
  }
  return fam;
}

}  // namespace

std::vector<MetricFamily> parse_families(const RenderedFamilies& rendered) {
  std::vector<MetricFamily> out;
  out.reserve(rendered.families().size());
  for (const auto& f : rendered.families()) out.push_back(parse_family(rendered.header(f), rendered.samples(f)));
  return out;
}

}  // namespace nvmond
