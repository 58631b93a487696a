#include "pts/round_record.hpp"

#include <fmt/chrono.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

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
  return s;
}

const char* kOpKeys[kIoOpCount] = {"read", "write"};

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
  return r;
}

std::string rfc3339(WallTime t) {
  const auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - secs).count();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", secs, ms);
}

nlohmann::json to_json(const OpSummary& s) {
  return {{"ops", s.ops},
          {"bytes", s.bytes},
          {"errors", s.errors},
          {"iops", s.iops},
          {"bytes_per_second", s.bytes_per_second},
          {"latency_s",
           {{"mean", s.mean}, {"min", s.min}, {"max", s.max}, {"p50", s.p50}, {"p90", s.p90},
            {"p99", s.p99}, {"p99.9", s.p999}, {"p99.99", s.p9999}}}};
}

nlohmann::json to_json(const RoundRecord& r) {
  nlohmann::json ops = nlohmann::json::object();
  for (int op = 0; op < kIoOpCount; ++op) {
    if (r.ops[op]) ops[kOpKeys[op]] = to_json(*r.ops[op]);
  }
  nlohmann::json j = {
      {"index", r.index},
      {"round", r.round},
      {"stage", r.stage},
      {"group", r.group},
      {"phase", r.phase},
      {"element_index", r.element_index},
      {"element",
       {{"bs", r.bs}, {"read_pct", r.read_pct}, {"threads", r.threads}, {"queue_depth", r.queue_depth},
        {"label", r.label}}},
      {"started_at", rfc3339(r.started_at)},
      {"started_ns", to_unix_ns(r.started_at)},
      {"seconds", r.seconds},
      {"iops", r.iops},
      {"bytes_per_second", r.bytes_per_second},
      {"ops", ops},
      {"throttled_seconds", r.throttled_seconds},
      {"bytes_written", r.bytes_written},
      {"histogram_counts", r.histogram},
  };
  if (r.temp_min_c && r.temp_max_c) j["temperature_c"] = {{"min", *r.temp_min_c}, {"max", *r.temp_max_c}};
  return j;
}

RoundRecord round_from_json(const nlohmann::json& j) {
  RoundRecord r;
  r.index = j.at("index").get<std::size_t>();
  r.round = j.at("round").get<std::size_t>();
  r.stage = j.at("stage").get<int>();
  r.group = j.at("group").get<int>();
  r.phase = j.at("phase").get<std::string>();
  r.element_index = j.at("element_index").get<std::size_t>();
  const auto& e = j.at("element");
  r.bs = e.at("bs").get<std::uint32_t>();
  r.read_pct = e.at("read_pct").get<double>();
  r.threads = e.at("threads").get<unsigned>();
  r.queue_depth = e.at("queue_depth").get<unsigned>();
  r.label = e.at("label").get<std::string>();
  r.started_at = from_unix_ns(j.at("started_ns").get<std::int64_t>());
  r.seconds = j.at("seconds").get<double>();
  r.iops = j.at("iops").get<double>();
  r.bytes_per_second = j.at("bytes_per_second").get<double>();
  for (int op = 0; op < kIoOpCount; ++op) {
    if (!j.at("ops").contains(kOpKeys[op])) continue;
    const auto& o = j.at("ops").at(kOpKeys[op]);
    const auto& l = o.at("latency_s");
    OpSummary s;
    s.ops = o.at("ops").get<std::uint64_t>();
    s.bytes = o.at("bytes").get<std::uint64_t>();
    s.errors = o.at("errors").get<std::uint64_t>();
    s.iops = o.at("iops").get<double>();
    s.bytes_per_second = o.at("bytes_per_second").get<double>();
    s.mean = l.at("mean").get<double>();
    s.min = l.at("min").get<double>();
    s.max = l.at("max").get<double>();
    s.p50 = l.at("p50").get<double>();
    s.p90 = l.at("p90").get<double>();
    s.p99 = l.at("p99").get<double>();
    s.p999 = l.at("p99.9").get<double>();
    s.p9999 = l.at("p99.99").get<double>();
    r.ops[op] = s;
  }
  if (j.contains("temperature_c")) {
    r.temp_min_c = j["temperature_c"].at("min").get<double>();
    r.temp_max_c = j["temperature_c"].at("max").get<double>();
  }
  r.throttled_seconds = j.at("throttled_seconds").get<double>();
  r.bytes_written = j.at("bytes_written").get<std::uint64_t>();
  r.histogram = j.at("histogram_counts").get<std::vector<std::uint64_t>>();
  return r;
}

}  // namespace nvmond
