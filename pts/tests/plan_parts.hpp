#pragma once
// What the tests' plan builders share: the parameters every measuring test
// has, one element at a block size and mix, the workload-independent
// preconditioning and a measured stage. Apart from pts/tests/<family>.cpp
// so that a test's file holds only what makes it that test.
#include <cstdint>
#include <vector>

#include "pts/plan.hpp"

namespace nvmond::plan_parts {

inline constexpr std::uint64_t kKiB = 1024;

// Parameters every measuring test shares; each test's defaults for them are
// in its schema.
struct Common {
  unsigned threads;
  unsigned queue_depth;
  Duration round;
  double range;
  bool purge;
  bool precondition;
  SteadyStateRule rule;
};

Common common(Params& p);
std::string mix_label(double read_pct);
Element element(std::uint64_t bs, double read_pct, AccessPattern pattern, const Common& c);
// Random elements for every read mix of `read_pcts` (outer) and block size of
// `block_sizes` (inner), at the common threads and queue depth.
std::vector<Element> mix_by_size(Params& p, const Common& c);
// A random element at its own load, labelled with it (" T4Q32"); a count
// below one is one.
Element at_load(std::uint64_t bs, double read_pct, const Common& c, std::int64_t threads, std::int64_t queue_depth);
// Workload-independent preconditioning: SEQ `bs` writes (128 KiB unless a
// test names its own) of `wipc_multiple` × `user_bytes` over the first
// `range_fraction` of the target.
Stage wipc_stage(Params& p, const Common& c, std::uint64_t user_bytes, double range_fraction, int group,
                 std::uint64_t bs = 128 * kKiB);
// The element of `elements` at `bs` and `read_pct`; the last one if none is.
std::size_t find_element(const std::vector<Element>& elements, std::uint64_t bs, double read_pct);
Stage measured_stage(std::vector<Element> elements, const Common& c, std::vector<TrackedElement> tracked);
Stage measured_stage(std::vector<Element> elements, const Common& c, std::size_t tracked, TrackedVariable var);
// The run's purge and, when asked for, its workload-independent preconditioning.
void add_preparation(TestPlan& plan, Params& p, const Common& c);
int rounds_within(Duration limit, Duration round);

}  // namespace nvmond::plan_parts
