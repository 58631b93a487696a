#include "pts/measured_round.hpp"

#include "pts/latency_distribution.hpp"

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

}  // namespace

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

}  // namespace nvmond
