#include "runmodel/round_record.hpp"

#include <fmt/chrono.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <limits>
#include <tuple>

#include "core/io_op.hpp"
#include "core/json_fields.hpp"
#include "core/json_path.hpp"

namespace nvmond {

namespace {

// One table per JSON object (core/json_fields.hpp).
constexpr auto kRoundFields = std::tuple{JsonField{"index", &RoundRecord::index},
                                         JsonField{"round", &RoundRecord::round},
                                         JsonField{"stage", &RoundRecord::stage},
                                         JsonField{"group", &RoundRecord::group},
                                         JsonField{"phase", &RoundRecord::phase},
                                         JsonField{"element_index", &RoundRecord::element_index},
                                         JsonField{"seconds", &RoundRecord::seconds},
                                         JsonField{"iops", &RoundRecord::iops},
                                         JsonField{"bytes_per_second", &RoundRecord::bytes_per_second},
                                         JsonField{"throttled_seconds", &RoundRecord::throttled_seconds},
                                         JsonField{"bytes_written", &RoundRecord::bytes_written},
                                         JsonField{"histogram_counts", &RoundRecord::histogram}};
constexpr auto kElementFields =
    std::tuple{JsonField{"bs", &RoundRecord::bs}, JsonField{"read_pct", &RoundRecord::read_pct},
               JsonField{"threads", &RoundRecord::threads}, JsonField{"queue_depth", &RoundRecord::queue_depth},
               JsonField{"label", &RoundRecord::label}};
constexpr auto kOpFields = std::tuple{JsonField{"ops", &OpSummary::ops}, JsonField{"bytes", &OpSummary::bytes},
                                      JsonField{"errors", &OpSummary::errors}, JsonField{"iops", &OpSummary::iops},
                                      JsonField{"bytes_per_second", &OpSummary::bytes_per_second}};
constexpr auto kLatencyFields = std::tuple{
    JsonField{"mean", &OpSummary::mean},  JsonField{"min", &OpSummary::min},     JsonField{"max", &OpSummary::max},
    JsonField{"p50", &OpSummary::p50},    JsonField{"p90", &OpSummary::p90},     JsonField{"p99", &OpSummary::p99},
    JsonField{"p99.9", &OpSummary::p999}, JsonField{"p99.99", &OpSummary::p9999}};
constexpr const char* kFiveNines = "p99.999";
constexpr const char* kDistribution = "latency_distribution";

}  // namespace

const std::vector<double>& histogram_bounds() {
  static const std::vector<double> b = [] {
    std::vector<double> v;
    for (double decade = 1e-6; decade < 10; decade *= 10) {
      for (double m : {1.0, 2.0, 5.0}) v.push_back(decade * m);
    }
    v.push_back(10);
    return v;
  }();
  return b;
}

double RoundRecord::mean_latency() const {
  double sum = 0, n = 0;
  for (const auto& o : ops) {
    if (!o) continue;
    sum += o->mean * static_cast<double>(o->ops);
    n += static_cast<double>(o->ops);
  }
  return n > 0 ? sum / n : 0;
}

std::string rfc3339(WallTime t) {
  const auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - secs).count();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", secs, ms);
}

nlohmann::json to_json(const OpSummary& s) {
  nlohmann::json j;
  write_fields(j, s, kOpFields);
  write_fields(j["latency_s"], s, kLatencyFields);
  if (s.p99999) j["latency_s"][kFiveNines] = *s.p99999;
  if (!s.distribution.empty()) {
    j[kDistribution] = {{"first_bucket", s.distribution.first_bucket}, {"counts", s.distribution.counts}};
  }
  return j;
}

nlohmann::json ops_json(const std::array<std::optional<OpSummary>, kIoOpCount>& ops) {
  nlohmann::json j = nlohmann::json::object();
  for (int op = 0; op < kIoOpCount; ++op) {
    if (ops[op]) j[op_name(static_cast<IoOp>(op))] = to_json(*ops[op]);
  }
  return j;
}

nlohmann::json to_json(const RoundRecord& r) {
  nlohmann::json j;
  write_fields(j, r, kRoundFields);
  write_fields(j["element"], r, kElementFields);
  j["started_at"] = rfc3339(r.started_at);
  j["started_ns"] = to_unix_ns(r.started_at);
  j["ops"] = ops_json(r.ops);
  if (r.temp_min_c && r.temp_max_c) j["temperature_c"] = {{"min", *r.temp_min_c}, {"max", *r.temp_max_c}};
  if (!r.sequential_cursor.empty()) j["sequential_cursor"] = r.sequential_cursor;
  if (!r.sequential_written.empty()) j["sequential_written"] = r.sequential_written;
  return j;
}

namespace {

using json_keys::count_or;
using json_keys::counts;
using json_keys::number_or;
using json_keys::Path;

OpSummary op_summary_from_json(const Path& o) {
  OpSummary s;
  s.ops = count_or(o, "ops");
  s.bytes = count_or(o, "bytes");
  s.errors = count_or(o, "errors");
  s.iops = o.number("iops");
  s.bytes_per_second = o.number("bytes_per_second");
  // Older documents may lack a quantile: NaN, as for a window without
  // distributions.
  s.mean = s.min = s.max = s.p50 = s.p90 = s.p99 = s.p999 = s.p9999 = std::numeric_limits<double>::quiet_NaN();
  if (const auto l = o.object("latency_s")) {
    std::apply([&](const auto&... f) { ((s.*f.member = l->number(f.key)), ...); }, kLatencyFields);
    // null: measured, but not known over a window some of whose rounds
    // kept no distribution; absent: rounds from before it was measured.
    if (l->j.contains(kFiveNines)) s.p99999 = l->number(kFiveNines);
  }
  if (const auto d = o.object(kDistribution)) {
    s.distribution.first_bucket = d->at("first_bucket").as<std::size_t>();
    s.distribution.counts = counts(*d, "counts");
  }
  return s;
}

// The round's start: its nanoseconds, else (older documents) its text.
WallTime round_start(const Path& n) {
  if (n.has("started_ns")) return from_unix_ns(n.at("started_ns").as<std::int64_t>());
  const std::string text = n.at("started_at").as<std::string>();
  const auto s = parse_rfc3339(text);
  if (!s) n.at("started_at").fail("expected an RFC 3339 time, got \"" + text + "\"");
  return from_unix_ns(std::llround(*s * 1e9));
}

}  // namespace

std::array<std::optional<OpSummary>, kIoOpCount> ops_from_json(const Path& ops) {
  std::array<std::optional<OpSummary>, kIoOpCount> out;
  for (int op = 0; op < kIoOpCount; ++op) {
    if (const auto o = ops.object(op_name(static_cast<IoOp>(op)))) out[op] = op_summary_from_json(*o);
  }
  return out;
}

RoundRecord round_from_json(const Path& n) {
  if (!n.j.is_object()) n.fail("expected a round object");
  RoundRecord r;
  const double index = n.number("index");
  if (std::isnan(index) || index < 0) n.fail("index is required");
  r.index = static_cast<std::size_t>(index);
  // Rounds written before they carried their stage and round were all of
  // one stage, numbered by their index.
  r.stage = static_cast<int>(number_or(n, "stage", 0));
  r.group = static_cast<int>(number_or(n, "group", 0));
  r.round = static_cast<std::size_t>(number_or(n, "round", index));
  r.element_index = static_cast<std::size_t>(number_or(n, "element_index", 0));
  r.phase = n.text("phase");
  if (const auto e = n.object("element")) {
    r.bs = static_cast<std::uint32_t>(count_or(*e, "bs"));
    r.read_pct = number_or(*e, "read_pct", 0);
    r.threads = static_cast<unsigned>(count_or(*e, "threads"));
    r.queue_depth = static_cast<unsigned>(count_or(*e, "queue_depth"));
    r.label = e->text("label");
  }
  r.started_at = round_start(n);
  r.seconds = n.number("seconds");
  r.iops = n.number("iops");
  r.bytes_per_second = n.number("bytes_per_second");
  if (const auto ops = n.object("ops")) r.ops = ops_from_json(*ops);
  if (const auto t = n.object("temperature_c")) {
    r.temp_min_c = t->at("min").as<double>();
    r.temp_max_c = t->at("max").as<double>();
  }
  r.throttled_seconds = n.number("throttled_seconds");
  r.bytes_written = count_or(n, "bytes_written");
  r.histogram = counts(n, "histogram_counts");
  r.sequential_cursor = counts(n, "sequential_cursor");
  r.sequential_written = counts(n, "sequential_written");
  return r;
}

RoundRecord round_from_json(const nlohmann::json& j) { return round_from_json(Path{j, ""}); }

Result<RoundRecord> round_from_text(const std::string& text) {
  try {
    return round_from_json(nlohmann::json::parse(text));
  } catch (const json_keys::DecodeError& e) {
    return Error{ErrorReason::decode, e.what()};
  } catch (const nlohmann::json::exception& e) {
    return Error{ErrorReason::decode, e.what()};
  }
}

std::optional<double> parse_rfc3339(const std::string& s) {
  int y, mo, d, h, mi, consumed = 0;
  double sec;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6) {
    if (std::sscanf(s.c_str(), "%4d-%2d-%2d %2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6) {
      return std::nullopt;
    }
  }
  const std::string zone = s.substr(static_cast<std::size_t>(consumed));
  double offset = 0;
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else {
    int oh, om;
    char sign;
    if (std::sscanf(zone.c_str(), "%c%2d:%2d", &sign, &oh, &om) != 3 || (sign != '+' && sign != '-') ||
        zone.size() != 6) {
      return std::nullopt;
    }
    offset = (sign == '+' ? 1 : -1) * (oh * 3600.0 + om * 60.0);
  }
  using namespace std::chrono;
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || sec < 0 || sec >= 61) return std::nullopt;
  const double days = static_cast<double>(sys_days{ymd}.time_since_epoch().count());
  return days * 86400.0 + h * 3600.0 + mi * 60.0 + sec - offset;
}

}  // namespace nvmond
