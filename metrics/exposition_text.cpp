#include "metrics/exposition_text.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string_view>

namespace nvmond {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

void append_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "Nan";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Inf" : "+Inf";
  } else if (v == std::trunc(v) && std::fabs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
    // Most values are counts: %.16g prints an integer below 1e16 as its
    // digits, and format_int does that without a float conversion.
    const fmt::format_int text(static_cast<std::int64_t>(v));
    out.append(text.data(), text.size());
  } else {
    // The serializer's ostream precision: max_digits10 - 1 in %g style.
    // Compiled and into a local buffer: parsing the format string at every
    // value, or formatting through a string's back_inserter, cost more
    // than the formatting itself.
    char buf[32];
    const auto end = fmt::format_to_n(buf, sizeof buf, FMT_COMPILE("{:.16g}"), v).out;
    out.append(buf, end);
  }
}

void append_label_value(std::string& out, std::string_view value) {
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

namespace {

void append_label(std::string& out, std::string_view name, auto&& append_value_text) {
  out += name;
  out += "=\"";
  append_value_text();
  out += '"';
}

// Name, suffix and labels (with an extra `le` or `quantile` when given),
// then the space before the value.
void append_head(std::string& out, std::string_view name, const ClientMetric& metric, std::string_view suffix = {},
                 std::string_view extra_name = {}, const double* extra = nullptr, std::string_view extra_text = {}) {
  out += name;
  out += suffix;
  if (!metric.label.empty() || !extra_name.empty()) {
    out += '{';
    bool first = true;
    for (const auto& l : metric.label) {
      if (!first) out += ',';
      first = false;
      append_label(out, l.name, [&] { append_label_value(out, l.value); });
    }
    if (!extra_name.empty()) {
      if (!first) out += ',';
      append_label(out, extra_name, [&] {
        if (extra != nullptr) {
          append_value(out, *extra);
        } else {
          out += extra_text;
        }
      });
    }
    out += '}';
  }
  out += ' ';
}

void append_tail(std::string& out, const ClientMetric& metric) {
  if (metric.timestamp_ms != 0) {
    out += ' ';
    const fmt::format_int text(metric.timestamp_ms);
    out.append(text.data(), text.size());
  }
  out += '\n';
}

void append_count(std::string& out, std::uint64_t n) {
  const fmt::format_int text(n);
  out.append(text.data(), text.size());
}

void append_histogram(std::string& out, std::string_view family, const ClientMetric& m) {
  const auto& h = m.histogram;
  append_head(out, family, m, "_count");
  append_count(out, h.sample_count);
  append_tail(out, m);
  append_head(out, family, m, "_sum");
  append_value(out, h.sample_sum);
  append_tail(out, m);
  double last = -std::numeric_limits<double>::infinity();
  for (const auto& b : h.bucket) {
    append_head(out, family, m, "_bucket", "le", &b.upper_bound);
    last = b.upper_bound;
    append_count(out, b.cumulative_count);
    append_tail(out, m);
  }
  if (last != std::numeric_limits<double>::infinity()) {
    append_head(out, family, m, "_bucket", "le", nullptr, "+Inf");
    append_count(out, h.sample_count);
    append_tail(out, m);
  }
}

void append_summary(std::string& out, std::string_view family, const ClientMetric& m) {
  const auto& s = m.summary;
  append_head(out, family, m, "_count");
  append_count(out, s.sample_count);
  append_tail(out, m);
  append_head(out, family, m, "_sum");
  append_value(out, s.sample_sum);
  append_tail(out, m);
  for (const auto& q : s.quantile) {
    append_head(out, family, m, {}, "quantile", &q.quantile);
    append_value(out, q.value);
    append_tail(out, m);
  }
}

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Summary: return "summary";
    case MetricType::Untyped: return "untyped";
    case MetricType::Histogram: return "histogram";
  }
  return "untyped";
}

}  // namespace

void append_family_header(std::string& out, std::string_view name, std::string_view help, MetricType type) {
  out.reserve(out.size() + 2 * name.size() + help.size() + 24);
  if (!help.empty()) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += '\n';
  }
  out += "# TYPE ";
  out += name;
  out += ' ';
  out += type_name(type);
  out += '\n';
}

void append_family_header(std::string& out, const MetricFamily& family) {
  append_family_header(out, family.name, family.help, family.type);
}

void append_series(std::string& out, std::string_view name, MetricType type, const ClientMetric& m) {
  switch (type) {
    case MetricType::Counter:
      append_head(out, name, m);
      append_value(out, m.counter.value);
      append_tail(out, m);
      break;
    case MetricType::Gauge:
      append_head(out, name, m);
      append_value(out, m.gauge.value);
      append_tail(out, m);
      break;
    case MetricType::Untyped:
      append_head(out, name, m);
      append_value(out, m.untyped.value);
      append_tail(out, m);
      break;
    case MetricType::Summary: append_summary(out, name, m); break;
    case MetricType::Histogram: append_histogram(out, name, m); break;
  }
}

void append_family_samples(std::string& out, const MetricFamily& family) {
  // One allocation for the common case: a line is the name, the labels
  // and a value of at most 23 characters (and a timestamp).
  std::size_t estimate = 0;
  for (const auto& m : family.metric) {
    std::size_t line = family.name.size() + 48;
    for (const auto& l : m.label) line += l.name.size() + l.value.size() + 4;
    const std::size_t lines = family.type == MetricType::Histogram ? m.histogram.bucket.size() + 3
                              : family.type == MetricType::Summary ? m.summary.quantile.size() + 2
                                                                   : 1;
    estimate += line * lines;
  }
  out.reserve(out.size() + estimate);
  for (const auto& m : family.metric) append_series(out, family.name, family.type, m);
}

}  // namespace nvmond
