#include "pts/tests/definition.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <functional>

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

// CBW (PTS-E's composite block-size workload: JEDEC JESD219's enterprise
// workload as fio's examples/jesd219.fio and the PTS scripts run it): block
// sizes by share of I/Os, every I/O at a 4 KiB-aligned offset, and three
// access ranges over the whole active range: half of the I/Os hit its first
// 5 %, 30 % the next 15 %, 20 % the remaining 80 %.
const std::vector<BlockSizeWeight> kCbwBlockSizes = {{512, 4},   {1024, 1},  {1536, 1},  {2048, 1},
                                                     {2560, 1},  {3072, 1},  {3584, 1},  {4096, 67},
                                                     {8192, 10}, {16384, 7}, {32768, 3}, {65536, 3}};
const std::vector<AccessZone> kCbwZones = {{50, 5}, {30, 15}, {20, 80}};
constexpr std::uint32_t kCbwAlign = 4096;

// The demand-intensity tests of PTS-E 2.0.x (CBW, DIRTH) share one shape
// and differ in their access pattern: `make` gives the element at a read
// share, thread count and queue depth. Purge; workload-dependent
// preconditioning with the test's own pattern at `precondition_read_pct` at
// the highest load (`threads` x `queue_depth`) until its IOPS is steady (no
// SEQ WIPC: the pattern is its own preconditioning); then rounds of the
// sweep, thread counts outer and queue depths inner in the order given (from
// high to low by default), at `read_pct`, until the IOPS of its
// highest-load point is steady. Both stages give up after `max_rounds`. The
// response-time histograms at the sweep's maximum, middle and minimum IOPS
// points come from dedicated rounds after it (or its measurement window:
// pts/results.cpp). `prewrite_rounds` > 0: before each sweep round, that
// many `round`-long runs of the pattern at 0/100 at the preconditioning's
// load (CBW's inter-round pre-write).
using SweepElement = std::function<Element(double read_pct, unsigned threads, unsigned queue_depth)>;

void demand_intensity_plan(TestPlan& plan, Params& p, const Common& c, double precondition_read_pct,
                           const SweepElement& make, int prewrite_rounds = 0) {
  plan.purge = c.purge;
  if (c.precondition) {
    Stage pre = measured_stage({make(precondition_read_pct, c.threads, c.queue_depth)}, c, 0, TrackedVariable::iops);
    pre.phase = Phase::precondition;
    pre.preconditions = true;
    plan.stages.push_back(std::move(pre));
  }
  const double read_pct = p.number("read_pct");
  std::vector<Element> sweep;
  for (auto t : p.integer_list("thread_counts")) {
    for (auto q : p.integer_list("queue_depths")) {
      sweep.push_back(make(read_pct, static_cast<unsigned>(std::max<std::int64_t>(1, t)),
                           static_cast<unsigned>(std::max<std::int64_t>(1, q))));
    }
  }
  if (sweep.empty()) throw ParamError(plan.test + ": thread_counts and queue_depths must not be empty");
  // The highest load the sweep reaches (the first, with the lists in their
  // default descending order) is the one its steady state follows.
  std::size_t top = 0;
  for (std::size_t i = 1; i < sweep.size(); ++i) {
    if (sweep[i].threads * sweep[i].queue_depth > sweep[top].threads * sweep[top].queue_depth) top = i;
  }
  const bool dedicated = p.boolean("histogram_rounds");
  const Duration histogram_round = p.duration("histogram_round");
  std::vector<Element> points = sweep;
  Stage s = measured_stage(std::move(sweep), c, top, TrackedVariable::iops);
  s.kind = "test";
  s.iops_point_histograms = true;
  const std::size_t sweep_stage = plan.stages.size();
  plan.stages.push_back(std::move(s));
  // The PTS scripts' response-time histograms: a dedicated round at each of
  // the max, mid and min IOPS points after the sweep (ECW 07_CBW_2: 600 s).
  if (dedicated) {
    Stage h;
    h.phase = Phase::histogram;
    h.kind = "histogram";
    h.label = "response-time histograms";
    for (auto& e : points) e.duration = histogram_round;
    h.elements = std::move(points);
    h.max_rounds = 1;
    h.points_of = sweep_stage;
    plan.stages.push_back(std::move(h));
  }
  if (prewrite_rounds > 0) {
    // Last in the plan, so that the other stages keep their indices (runs
    // stored before there was a pre-write read as they did).
    Stage w;
    w.phase = Phase::prewrite;
    w.kind = "prewrite";
    w.label = "inter-round pre-write";
    Element e = make(0, c.threads, c.queue_depth);
    e.label += " pre-write";
    w.elements = {e};
    w.max_rounds = prewrite_rounds;
    plan.stages[sweep_stage].prewrite = plan.stages.size();
    plan.stages.push_back(std::move(w));
  }
}

Element cbw_element(double read_pct, unsigned threads, unsigned queue_depth, const Common& c) {
  Common at = c;
  at.threads = threads;
  at.queue_depth = queue_depth;
  Element e = element(4 * kKiB, read_pct, AccessPattern::random, at);
  e.block_sizes = kCbwBlockSizes;
  e.zones = kCbwZones;
  e.block_align = kCbwAlign;
  e.label = fmt::format("CBW {} T{}Q{}", mix_label(read_pct), threads, queue_depth);
  return e;
}

// CBW: the demand-intensity sweep over the JESD219 pattern, preconditioned
// with that pattern at 0/100 (the PTS CBW scripts' "R/W mix 0 %"), and
// pre-written with it before each sweep round (their "Inter-Round
// Pre-Write": 5 x 60 s at 0/100 at the preconditioning's load).
void cbw_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  demand_intensity_plan(
      plan, p, c, 0, [&c](double read_pct, unsigned t, unsigned q) { return cbw_element(read_pct, t, q, c); },
      static_cast<int>(p.integer("prewrite_rounds")));
}

// DIRTH: the demand-intensity sweep over RND `bs` at `read_pct` (PTS-E:
// RND 4 KiB writes, the WSAT pattern), preconditioned with that same
// pattern, reads included when the operator chose a mix.
void dirth_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  demand_intensity_plan(plan, p, c, p.number("read_pct"), [&c, bs](double read_pct, unsigned t, unsigned q) {
    Common at = c;
    at.threads = t;
    at.queue_depth = q;
    Element e = element(bs, read_pct, AccessPattern::random, at);
    e.label += fmt::format(" T{}Q{}", t, q);
    return e;
  });
}

// `threads` x `queue_depth` is the preconditioning's load, the sweep's
// highest.
constexpr CommonDefaults kDemandIntensityDefaults{32, 32, std::chrono::seconds(60), true, true, 25};

// A demand-intensity test's own keys, then the sweep's grid.
std::vector<ParamSpec> demand_intensity_params(std::vector<ParamSpec> own) {
  own.push_back(
      integer_list("thread_counts", {32, 16, 8, 6, 4, 2, 1}, 256, "thread counts of the sweep, in this order"));
  own.push_back(
      integer_list("queue_depths", {32, 16, 8, 6, 4, 2, 1}, 4096, "queue depths of the sweep, in this order"));
  own.push_back(boolean("histogram_rounds", true,
                        "after the sweep, a dedicated histogram_round at its max, mid and min IOPS points"));
  own.push_back(duration("histogram_round", std::chrono::minutes(10), "length of each dedicated histogram round"));
  return own;
}

// PTS-E CBW: `precondition` is the CBW pattern at 0/100 to steady state,
// not SEQ 128KiB writes.
TestSchema cbw_schema() {
  return with_own_preconditioning(
      measuring(
          "composite block-size workload", kDemandIntensityDefaults,
          demand_intensity_params({number("read_pct", 40.0, 0, 100, "read share of the sweep, in % (JESD219: 40)"),
                                   integer("prewrite_rounds", 5, 0, 1000,
                                           "before each sweep round, this many rounds of the CBW pattern at "
                                           "0/100 at threads x queue_depth (0: no pre-write)")}),
          true),
      "the CBW pattern at 0/100 at threads x queue_depth until steady first");
}

// PTS-E DIRTH: the same sweep over one random block size and mix; the
// preconditioning is that pattern, mix included.
TestSchema dirth_schema() {
  return with_own_preconditioning(
      measuring("demand intensity / response-time histogram", kDemandIntensityDefaults,
                demand_intensity_params({bytes("bs", 4 * kKiB, "block size"),
                                         number("read_pct", 0.0, 0, 100, "read share, in % (PTS-E: 0, all writes)")}),
                true),
      "the test's pattern at threads x queue_depth until steady first");
}

}  // namespace

std::vector<TestDefinition> demand_intensity_tests() {
  return {
      {.name = "cbw",
       .rank = 90,
       .schema = cbw_schema(),
       .build = cbw_plan,
       .spec = SpecConditions{{"round", "max_rounds", "precondition", "read_pct", "thread_counts", "queue_depths",
                               "prewrite_rounds"},
                              nullptr}},
      {.name = "dirth",
       .rank = 100,
       .schema = dirth_schema(),
       .build = dirth_plan,
       .spec = SpecConditions{{"round", "max_rounds", "precondition", "thread_counts", "queue_depths"}, nullptr}},
  };
}

}  // namespace nvmond
