#pragma once
// The Prometheus text exposition, byte for byte what prometheus-cpp's
// TextSerializer writes (values with 16 significant digits, "Nan" and
// "+Inf"/"-Inf", label values with \\, \" and \n escaped, a histogram's
// implicit +Inf bucket), split into a family's comment lines and its samples
// so that families of one name from several sources share a header.
//
// Written with fmt into a std::string: the serializer's ostream, with a
// locale imbued for every call and every double through num_put, cost more
// than the whole rest of a drive's poll.
#include <prometheus/metric_family.h>

#include <string>
#include <string_view>

namespace nvmond {

// A sample's value as the serializer writes it.
void append_value(std::string& out, double v);
// A label's value between its quotes, escaped.
void append_label_value(std::string& out, std::string_view value);

// "# HELP …" (when there is help) and "# TYPE …" lines.
void append_family_header(std::string& out, std::string_view name, std::string_view help, prometheus::MetricType type);
void append_family_header(std::string& out, const prometheus::MetricFamily& family);
// The sample lines of one series of family `name` (several for a histogram
// or a summary).
void append_series(std::string& out, std::string_view name, prometheus::MetricType type,
                   const prometheus::ClientMetric& series);
// One line per sample of every series of `family`.
void append_family_samples(std::string& out, const prometheus::MetricFamily& family);

}  // namespace nvmond
