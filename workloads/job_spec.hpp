#pragma once
// What a workload does, as plain data, and its [[job]] TOML form.
//
// [[job]]
// name = "wsat"                  # required; metric label `job`
// target = "/dev/nvme1n1"        # block device, file path, or "sim:SERIAL"
// engine = "io_uring"            # "io_uring" (default) or "sim"
// pattern = "random"             # "random" (default) | "sequential"
// bs = "4KiB"                    # or bs_mix = [{bs = "4KiB", weight = 60}, ...]
// read_pct = 70                  # 0..100, default 100
// threads = 2                    # default 1, one io_uring per thread
// queue_depth = 32               # per thread, default 1
// offset = "0"  size = "100GiB"  # LBA range used (overprovisioning); size 0 = to end
// runtime = "60s"  bytes = "1TiB"  # either or both; neither = one pass of `size`
// rate_iops = 5000  rate_bytes = "200MB"   # per second, whole job; 0 = unlimited
// data = "random"                # "random" (incompressible, default) | "zeros"
// verify = false                 # write pass, then read back and check checksums
// file_size = "1GiB"             # create/extend a file target to this size
// direct = true                  # O_DIRECT (default true)
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/config_reader.hpp"

namespace nvmond {

enum class AccessPattern { random, sequential };
enum class DataPattern { random, zeros };

struct BlockSizeWeight {
  std::uint32_t bytes = 4096;
  std::uint32_t weight = 1;
};

// Skewed random access (PTS CBW): `access_pct` of the I/Os land in the next
// `range_pct` of the job's range, zones laid out from its start over the
// whole range (every worker draws from the same zones). Set by the PTS
// tests, not by [[job]] tables.
struct AccessZoneWeight {
  double access_pct = 100;
  double range_pct = 100;
};

// Where a sequential job's workers stand: each worker's next offset (bytes
// into the target), in worker order. A job started from a cursor goes on
// where the job before it stopped; empty: every worker at its share's start.
using SequentialCursor = std::vector<std::uint64_t>;

struct JobSpec {
  std::string name;
  std::string target;
  std::string engine = "io_uring";
  AccessPattern pattern = AccessPattern::random;
  std::vector<BlockSizeWeight> block_sizes{BlockSizeWeight{}};
  double read_pct = 100.0;
  unsigned threads = 1;
  unsigned queue_depth = 1;
  std::uint64_t offset = 0;  // bytes
  std::uint64_t size = 0;    // bytes; 0 = from offset to the end of the target
  std::optional<Duration> runtime;
  std::optional<std::uint64_t> bytes;  // total across threads
  double rate_iops = 0;                // whole job; 0 = unlimited
  double rate_bytes_per_second = 0;    // whole job; 0 = unlimited
  DataPattern data = DataPattern::random;
  bool verify = false;
  std::uint64_t file_size = 0;
  bool direct = true;
  // Each worker bound to one CPU (workloads/cpu_pinning.hpp).
  bool pin_cpus = true;
  // Longest spin for the completion of a worker's only I/O in flight before
  // it sleeps (workloads/completion_spin.hpp); 0: always sleep.
  Duration completion_spin = std::chrono::microseconds(50);
  std::vector<AccessZoneWeight> zones;  // random pattern only; empty = uniform
  // Random pattern: offsets are multiples of this (JESD219's 4 KiB, so that
  // its sub-4 KiB transfers stay inside one 4 KiB page); 0: of each I/O's
  // own size. Set by the PTS tests.
  std::uint32_t block_align = 0;
  // Sequential pattern: where each worker starts (an offset outside its
  // share starts it at its share's start). Set by the PTS tests.
  SequentialCursor sequential_start;
  // Sequential pattern: each worker's own byte budget, in worker order, in
  // place of an even share of `bytes` (a worker given 0 issues nothing). Set
  // by the PTS tests, so that a worker faster than the others does not use
  // up a slower one's share of a budget meant to cover the whole range.
  std::vector<std::uint64_t> worker_bytes;

  std::uint32_t max_block_size() const;
  bool writes() const { return read_pct < 100.0 || verify; }
};

// Reads one [[job]] table and calls finish() on it: unknown keys and invalid
// combinations throw ConfigError with file:line:col.
JobSpec parse_job(TableReader& table);

}  // namespace nvmond
