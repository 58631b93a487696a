#include "workloads/job_spec.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "collectors/sim_name.hpp"

namespace nvmond {

std::uint32_t JobSpec::max_block_size() const {
  std::uint32_t m = 0;
  for (const auto& b : block_sizes) m = std::max(m, b.bytes);
  return m;
}

namespace {

// Every numeric key's bound, declared once (docs/configuration.md).
constexpr ByteRange kBlock{1, 64ULL << 20};  // io_uring/O_DIRECT: keep one I/O sane
constexpr IntegerRange kWeight{1, 1'000'000};
constexpr IntegerRange kThreads{1, 1024};
constexpr IntegerRange kQueueDepth{1, 4096};
constexpr NumberRange kReadPct{0, 100, "%"};
constexpr ByteRange kExtent{0, 1ULL << 50};  // offset, size, file_size: 1 PiB
constexpr DurationRange kRuntime{std::chrono::milliseconds(1), std::chrono::hours(24 * 365)};
constexpr ByteRange kTotalBytes{1, 1ULL << 60};
constexpr NumberRange kRateIops{0, 1e9, "IOPS"};
constexpr ByteRange kRateBytes{0, 1'000'000'000'000};  // 1 TB/s
// Beyond 1 ms a wait is cheaper asleep than spinning: a wake-up costs
// microseconds.
constexpr DurationRange kCompletionSpin{Duration(0), std::chrono::milliseconds(1)};

std::uint32_t block_size(TableReader& t, std::string_view key, bool direct) {
  auto b = t.bytes(key, kBlock);
  if (!b) t.fail_here(fmt::format("{}: missing \"{}\"", t.where(), key));
  if (direct && *b % 512 != 0) t.fail(key, "must be a multiple of 512 bytes with direct = true");
  return static_cast<std::uint32_t>(*b);
}

unsigned count(TableReader& t, std::string_view key, unsigned fallback, const IntegerRange& range) {
  return static_cast<unsigned>(t.integer(key, range).value_or(fallback));
}

}  // namespace

JobSpec parse_job(TableReader& t) {
  JobSpec j;
  auto name = t.string("name");
  if (!name || name->empty()) t.fail_here(t.where() + ": \"name\" is required");
  j.name = *name;
  auto target = t.string("target");
  if (!target || target->empty()) t.fail_here(t.where() + ": \"target\" is required");
  j.target = *target;
  j.engine = t.choice("engine", {"io_uring", "sim"}).value_or("io_uring");
  if (j.engine == "sim" && !is_sim_target(j.target)) {
    t.fail("target", "the sim engine needs a target of the form \"sim:SERIAL\"");
  }
  if (auto p = t.choice("pattern", {"random", "sequential"})) {
    j.pattern = *p == "random" ? AccessPattern::random : AccessPattern::sequential;
  }
  j.direct = t.boolean("direct").value_or(true);
  j.pin_cpus = t.boolean("pin_cpus").value_or(true);
  j.completion_spin = t.duration("completion_spin", kCompletionSpin).value_or(j.completion_spin);

  const bool has_bs = t.raw().contains("bs");
  const bool has_mix = t.raw().contains("bs_mix");
  if (has_bs && has_mix) t.fail("bs_mix", "give either bs or bs_mix, not both");
  if (has_bs) j.block_sizes = {BlockSizeWeight{block_size(t, "bs", j.direct), 1}};
  if (has_mix) {
    j.block_sizes.clear();
    for (auto& e : t.array_of_tables("bs_mix")) {
      BlockSizeWeight w;
      w.bytes = block_size(e, "bs", j.direct);
      auto weight = e.integer("weight", kWeight);
      if (!weight) e.fail_here(e.where() + ": missing \"weight\"");
      w.weight = static_cast<std::uint32_t>(*weight);
      e.finish();
      j.block_sizes.push_back(w);
    }
    if (j.block_sizes.empty()) t.fail("bs_mix", "must list at least one block size");
  }

  j.read_pct = t.number("read_pct", kReadPct).value_or(100.0);
  j.threads = count(t, "threads", 1, kThreads);
  j.queue_depth = count(t, "queue_depth", 1, kQueueDepth);
  j.offset = t.bytes("offset", kExtent).value_or(0);
  j.size = t.bytes("size", kExtent).value_or(0);
  j.runtime = t.duration("runtime", kRuntime);
  j.bytes = t.bytes("bytes", kTotalBytes);
  j.rate_iops = t.number("rate_iops", kRateIops).value_or(0);
  j.rate_bytes_per_second = t.rate("rate_bytes", kRateBytes).value_or(0);
  if (auto d = t.choice("data", {"random", "zeros"})) {
    j.data = *d == "random" ? DataPattern::random : DataPattern::zeros;
  }
  j.verify = t.boolean("verify").value_or(false);
  j.file_size = t.bytes("file_size", kExtent).value_or(0);

  const std::uint32_t align = j.direct ? 512 : 1;
  if (j.offset % align != 0) t.fail("offset", "must be a multiple of 512 bytes with direct = true");
  if (j.size % align != 0) t.fail("size", "must be a multiple of 512 bytes with direct = true");
  if (j.size != 0 && j.size < j.max_block_size()) t.fail("size", "is smaller than the block size");
  if (j.verify) {
    if (j.block_sizes.size() != 1) t.fail("verify", "needs a single block size (bs), not bs_mix");
    if (j.read_pct != 0) t.fail("verify", "is a write job: set read_pct = 0 (the read-back pass is automatic)");
    if (j.data == DataPattern::zeros) t.fail("verify", "needs data = \"random\" (blocks carry checksums)");
  }
  t.finish();
  return j;
}

}  // namespace nvmond
