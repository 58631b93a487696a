#pragma once
// One finished round of one element, as stored and as written to run.json:
// plain data with a JSON form that round-trips (the store keeps the JSON; a
// resumed run reads its rounds back from it). pts/measured_round.hpp makes
// one from what a round measured.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.hpp"
#include "core/io_op.hpp"
#include "core/json_path.hpp"
#include "core/result.hpp"
#include "runmodel/latency_distribution.hpp"

namespace nvmond {

struct OpSummary : OpCounts {
  double iops = 0;
  double bytes_per_second = 0;
  // Seconds. NaN: not known (a window some of whose rounds kept no
  // distribution).
  double mean = 0, min = 0, max = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, p9999 = 0;
  std::optional<double> p99999;      // none in rounds stored before it was measured
  LatencyDistribution distribution;  // a round's; empty in a window's summary
};

// Latency distribution bounds shared by every round (seconds, upper bounds;
// the last bucket takes everything above): 1 µs … 10 s in 1-2-5 steps.
const std::vector<double>& histogram_bounds();

struct RoundRecord {
  std::size_t index = 0;  // 0-based, unique per run, in execution order
  int stage = 0;          // index in the plan's stages
  int group = 0;          // 0: the run, 1: the comparison run
  std::size_t round = 0;  // PTS round within its stage
  std::size_t element_index = 0;
  std::string phase;  // precondition | test
  std::string label;
  std::uint32_t bs = 0;  // the element's (first) block size
  double read_pct = 0;
  unsigned threads = 0, queue_depth = 0;
  WallTime started_at{};
  double seconds = 0;
  double iops = 0;
  double bytes_per_second = 0;
  std::array<std::optional<OpSummary>, kIoOpCount> ops;
  std::optional<double> temp_min_c, temp_max_c;
  double throttled_seconds = 0;
  std::uint64_t bytes_written = 0;
  std::vector<std::uint64_t> histogram;  // counts per histogram_bounds() bucket, both ops
  // A sequential element: where each of its workers stopped (bytes into the
  // target), where the element's next run goes on, also after a resume.
  // Empty for random elements and in rounds stored before it was kept.
  std::vector<std::uint64_t> sequential_cursor;
  // A sequential element: the bytes each of its workers wrote in this round,
  // so that each worker's share of a stage's byte budget is known, also
  // after a resume. Empty where the target does not tell them apart and in
  // rounds stored before it was kept.
  std::vector<std::uint64_t> sequential_written;

  double mean_latency() const;  // seconds, over both ops
};

nlohmann::json to_json(const OpSummary& s);
nlohmann::json to_json(const RoundRecord& r);
// A round as the store keeps it and as run.json holds it, also as older
// documents wrote it: a round without its stage and round is stage 0's, its
// round its index; absent rates, times and quantiles are NaN, absent counts
// 0. Throws json_keys::DecodeError naming the field ("rounds[3].iops:
// expected a number") on a malformed one.
RoundRecord round_from_json(const json_keys::Path& n);
// A round's or a window's ops as one object, {"read": …, "write": …}, the
// ones it has; and back.
nlohmann::json ops_json(const std::array<std::optional<OpSummary>, kIoOpCount>& ops);
std::array<std::optional<OpSummary>, kIoOpCount> ops_from_json(const json_keys::Path& ops);
RoundRecord round_from_json(const nlohmann::json& j);
// The same from the text the store keeps; reason "decode", naming the field.
Result<RoundRecord> round_from_text(const std::string& text);

std::string rfc3339(WallTime t);
// Seconds since the Unix epoch of an RFC 3339 timestamp
// ("2026-11-30T21:45:31Z", "...31.250+02:00"); nullopt when malformed.
std::optional<double> parse_rfc3339(const std::string& text);

}  // namespace nvmond
