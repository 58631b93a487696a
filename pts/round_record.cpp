#include "pts/round_record.hpp"

#include <fmt/chrono.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/io_op.hpp"
#include "core/json_fields.hpp"

namespace nvmond {

namespace {

OpSummary summarise(const OpTotals& t, double secs) {
  OpSummary s;
  static_cast<OpCounts&>(s) = t;
  s.iops = secs > 0 ? static_cast<double>(t.ops) / secs : 0;
  s.bytes_per_second = secs > 0 ? static_cast<double>(t.bytes) / secs : 0;
  const LatencyHistogram& h = t.latency;
  s.mean = h.mean() * 1e-9;
  s.min = static_cast<double>(h.min()) * 1e-9;
  s.max = static_cast<double>(h.max()) * 1e-9;
  s.p50 = h.quantile(0.5) * 1e-9;
  s.p90 = h.quantile(0.9) * 1e-9;
  s.p99 = h.quantile(0.99) * 1e-9;
  s.p999 = h.quantile(0.999) * 1e-9;
  s.p9999 = h.quantile(0.9999) * 1e-9;
  s.p99999 = h.quantile(0.99999) * 1e-9;
  s.distribution = distribution_of(h);
  return s;
}

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

RoundRecord make_round(const Element& e, const Measurement& m, WallTime started) {
  RoundRecord r;
  r.label = e.label;
  r.bs = e.block_sizes.empty() ? 0 : e.block_sizes[0].bytes;
  r.read_pct = e.read_pct;
  r.threads = e.threads;
  r.queue_depth = e.queue_depth;
  r.started_at = started;
  r.seconds = seconds(m.elapsed);
  std::uint64_t ops = 0, bytes = 0;
  const auto& bounds = histogram_bounds();
  r.histogram.assign(bounds.size() + 1, 0);
  for (int op = 0; op < kIoOpCount; ++op) {
    const OpTotals& t = m.op[op];
    if (t.ops == 0 && t.errors == 0) continue;
    r.ops[op] = summarise(t, r.seconds);
    ops += t.ops;
    bytes += t.bytes;
    std::uint64_t below = 0;
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      const std::uint64_t upto = t.latency.count_at_or_below(static_cast<std::uint64_t>(bounds[i] * 1e9));
      r.histogram[i] += upto - below;
      below = upto;
    }
    r.histogram.back() += t.latency.count() - below;
  }
  r.bytes_written = m.op[1].bytes;
  r.iops = r.seconds > 0 ? static_cast<double>(ops) / r.seconds : 0;
  r.bytes_per_second = r.seconds > 0 ? static_cast<double>(bytes) / r.seconds : 0;
  r.temp_min_c = m.temp_min_c;
  r.temp_max_c = m.temp_max_c;
  r.throttled_seconds = m.throttled_seconds;
  r.sequential_cursor = m.cursor;
  r.sequential_written = m.written_by_stream;
  return r;
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

nlohmann::json to_json(const RoundRecord& r) {
  nlohmann::json ops = nlohmann::json::object();
  for (int op = 0; op < kIoOpCount; ++op) {
    if (r.ops[op]) ops[op_name(static_cast<IoOp>(op))] = to_json(*r.ops[op]);
  }
  nlohmann::json j;
  write_fields(j, r, kRoundFields);
  write_fields(j["element"], r, kElementFields);
  j["started_at"] = rfc3339(r.started_at);
  j["started_ns"] = to_unix_ns(r.started_at);
  j["ops"] = ops;
  if (r.temp_min_c && r.temp_max_c) j["temperature_c"] = {{"min", *r.temp_min_c}, {"max", *r.temp_max_c}};
  if (!r.sequential_cursor.empty()) j["sequential_cursor"] = r.sequential_cursor;
  if (!r.sequential_written.empty()) j["sequential_written"] = r.sequential_written;
  return j;
}

RoundRecord round_from_json(const nlohmann::json& j) {
  RoundRecord r;
  read_fields(j, r, kRoundFields);
  read_fields(j.at("element"), r, kElementFields);
  r.started_at = from_unix_ns(j.at("started_ns").get<std::int64_t>());
  for (int op = 0; op < kIoOpCount; ++op) {
    if (!j.at("ops").contains(op_name(static_cast<IoOp>(op)))) continue;
    const auto& o = j.at("ops").at(op_name(static_cast<IoOp>(op)));
    OpSummary s;
    read_fields(o, s, kOpFields);
    read_fields(o.at("latency_s"), s, kLatencyFields);
    // Rounds stored before these were measured have neither.
    if (o.at("latency_s").contains(kFiveNines)) s.p99999 = o.at("latency_s").at(kFiveNines).get<double>();
    if (o.contains(kDistribution)) {
      o.at(kDistribution).at("first_bucket").get_to(s.distribution.first_bucket);
      o.at(kDistribution).at("counts").get_to(s.distribution.counts);
    }
    r.ops[op] = s;
  }
  if (j.contains("temperature_c")) {
    r.temp_min_c = j["temperature_c"].at("min").get<double>();
    r.temp_max_c = j["temperature_c"].at("max").get<double>();
  }
  if (j.contains("sequential_cursor")) r.sequential_cursor = j["sequential_cursor"].get<SequentialCursor>();
  if (j.contains("sequential_written")) {
    r.sequential_written = j["sequential_written"].get<std::vector<std::uint64_t>>();
  }
  return r;
}

}  // namespace nvmond
