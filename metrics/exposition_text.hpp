#pragma once
// The Prometheus text exposition of one family, byte for byte what
// prometheus-cpp's TextSerializer writes (values with 16 significant digits,
// "Nan" and "+Inf"/"-Inf", label values with \\, \" and \n escaped, a
// histogram's implicit +Inf bucket), split into its comment lines and its
// samples so that families of one name from several sources share a header.
//
// Written with fmt into a std::string: the serializer's ostream, with a
// locale imbued for every call and every double through num_put, cost more
// than the whole rest of a drive's poll.
#include <prometheus/metric_family.h>

#include <string>

namespace nvmond {

// "# HELP …" (when the family has help) and "# TYPE …" lines.
void append_family_header(std::string& out, const prometheus::MetricFamily& family);
// One line per sample (several per histogram or summary series).
void append_family_samples(std::string& out, const prometheus::MetricFamily& family);

}  // namespace nvmond
