#include "workloads/job_spec.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>

namespace nvmond {

std::uint32_t JobSpec::max_block_size() const {
  std::uint32_t m = 0;
  for (const auto& b : block_sizes) m = std::max(m, b.bytes);
  return m;
}

namespace {

constexpr std::uint64_t kMaxBlock = 64ULL << 20;  // io_uring/O_DIRECT: keep one I/O sane

std::uint32_t block_size(TableReader& t, std::string_view key, bool direct) {
  auto b = t.bytes(key);
  if (!b) t.fail_here(fmt::format("{}: missing \"{}\"", t.where(), key));
  if (*b == 0 || *b > kMaxBlock) t.fail(key, "must be between 1 byte and 64MiB");
  if (direct && *b % 512 != 0) t.fail(key, "must be a multiple of 512 bytes with direct = true");
  return static_cast<std::uint32_t>(*b);
}

unsigned positive(TableReader& t, std::string_view key, unsigned fallback, unsigned hi) {
  auto v = t.integer(key);
  if (!v) return fallback;
  if (*v < 1 || *v > hi) t.fail(key, fmt::format("must be between 1 and {}", hi));
  return static_cast<unsigned>(*v);
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
  if (j.engine == "sim" && j.target.rfind("sim:", 0) != 0) {
    t.fail("target", "the sim engine needs a target of the form \"sim:SERIAL\"");
  }
  if (auto p = t.choice("pattern", {"random", "sequential"})) {
    j.pattern = *p == "random" ? AccessPattern::random : AccessPattern::sequential;
  }
  j.direct = t.boolean("direct").value_or(true);

  const bool has_bs = t.raw().contains("bs");
  const bool has_mix = t.raw().contains("bs_mix");
  if (has_bs && has_mix) t.fail("bs_mix", "give either bs or bs_mix, not both");
  if (has_bs) j.block_sizes = {BlockSizeWeight{block_size(t, "bs", j.direct), 1}};
  if (has_mix) {
    j.block_sizes.clear();
    for (auto& e : t.array_of_tables("bs_mix")) {
      BlockSizeWeight w;
      w.bytes = block_size(e, "bs", j.direct);
      auto weight = e.integer("weight");
      if (!weight || *weight < 1 || *weight > 1'000'000) {
        e.fail_here(e.where() + ": \"weight\" must be an integer between 1 and 1000000");
      }
      w.weight = static_cast<std::uint32_t>(*weight);
      e.finish();
      j.block_sizes.push_back(w);
    }
    if (j.block_sizes.empty()) t.fail("bs_mix", "must list at least one block size");
  }

  j.read_pct = t.number_in("read_pct", 0, 100).value_or(100.0);
  j.threads = positive(t, "threads", 1, 1024);
  j.queue_depth = positive(t, "queue_depth", 1, 4096);
  j.offset = t.bytes("offset").value_or(0);
  j.size = t.bytes("size").value_or(0);
  j.runtime = t.duration("runtime");
  j.bytes = t.bytes("bytes");
  if (j.runtime && j.runtime->count() == 0) t.fail("runtime", "must be positive");
  if (j.bytes && *j.bytes == 0) t.fail("bytes", "must be positive");
  j.rate_iops = t.number_in("rate_iops", 0, 1e9).value_or(0);
  j.rate_bytes_per_second = static_cast<double>(t.bytes("rate_bytes").value_or(0));
  if (auto d = t.choice("data", {"random", "zeros"})) {
    j.data = *d == "random" ? DataPattern::random : DataPattern::zeros;
  }
  j.verify = t.boolean("verify").value_or(false);
  j.file_size = t.bytes("file_size").value_or(0);

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
