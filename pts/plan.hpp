#pragma once
// A PTS test as plain data: what to do to the target before measuring
// (purge), then stages of rounds. One round runs every element of its stage
// once, in order; a stage ends at its round limit, its byte budget, steady
// state of its tracked elements, or (SLC test) once throughput has fallen and
// stayed down. Built by build_plan() from a validated request (the test and
// its parameters, runmodel/request.hpp) and the facts of the target;
// pure and deterministic, so plans are unit tested without a drive.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "runmodel/pts_profile.hpp"
#include "runmodel/stage_phase.hpp"
#include "runmodel/tracked_variable.hpp"
#include "pts/params.hpp"
#include "pts/steady_state.hpp"
#include "pts/catalog.hpp"
#include "workloads/io_engine.hpp"
#include "workloads/job_spec.hpp"

namespace nvmond {

// CBW's access ranges: `access_pct` of the I/Os land in the next
// `range_pct` of the tested range (zones laid out in order from its start).
struct AccessZone {
  double access_pct = 100;
  double range_pct = 100;
};

// One workload run for one round: what fio would call a job.
struct Element {
  std::string label;  // "4KiB 65/35", "SEQ 128KiB write"
  std::vector<BlockSizeWeight> block_sizes{BlockSizeWeight{}};
  double read_pct = 0;
  AccessPattern pattern = AccessPattern::random;
  unsigned threads = 1;
  unsigned queue_depth = 1;
  double range_fraction = 1.0;    // of the tested range, from its start
  std::vector<AccessZone> zones;  // empty: uniform over the range
  std::uint32_t block_align = 0;  // random offsets' alignment; 0: each I/O's own size
  Duration duration = std::chrono::seconds(60);
  double rate_bytes_per_second = 0;  // 0: unlimited
  // The host leaves the target idle this long after each run of the element
  // (HIR's wait states); 0: the next run follows at once.
  Duration idle_after{0};
  // Set by the executor for one run of a sequential element under a byte
  // budget: each thread's bytes still to write (empty: the budget is shared).
  std::vector<std::uint64_t> thread_budgets;
  bool writes() const { return read_pct < 100; }
};

// One variable the steady-state rule follows: a value of one element.
struct TrackedElement {
  std::size_t element = 0;  // index in the stage's elements
  TrackedVariable variable = TrackedVariable::iops;
};

struct SteadyStateTracking {
  SteadyStateRule rule;
  // Steady only when every one passes over the same window: PTS-E's IOPS
  // test tracks three, the other tests one.
  std::vector<TrackedElement> tracked;
  bool stop_when_reached = true;  // false: fixed-length soak, judged at the end
};

// SLC cache test: the stage ends once a round's write throughput has stayed
// below drop_fraction × the first round's for drop_rounds rounds.
struct SlcDetection {
  double drop_fraction = 0.7;
  int drop_rounds = 3;
};

struct Stage {
  Phase phase = Phase::test;
  std::string kind;   // "workload-independent", "workload-dependent", "test"
  std::string label;  // names the stage where its block size does not (XSR's access groups)
  int group = 0;      // 0: the run; 1: the comparison run (mixed test)
  bool purge_before = false;
  std::vector<Element> elements;
  int max_rounds = 1;                        // 0: no limit (a byte budget ends the stage)
  std::optional<std::uint64_t> byte_budget;  // host bytes written in this stage
  std::optional<SteadyStateTracking> steady_state;
  std::optional<SlcDetection> slc;
  // A demand-intensity sweep: run.json keeps the response-time histograms,
  // reads and writes apart, of its elements with the highest, middle and
  // lowest IOPS over the measurement window.
  bool iops_point_histograms = false;
  // The dedicated histogram rounds after a demand-intensity sweep: one run
  // each at the max, mid and min IOPS points of stage `points_of`'s
  // measurement window, chosen when the stage starts. Its elements are the
  // sweep's (so a round's element_index names its point), each run once.
  std::optional<std::size_t> points_of;
  // The stage (phase "prewrite") whose element runs its max_rounds times
  // before each round of this one: CBW's inter-round pre-write. That stage
  // runs only from here, never on its own; its rounds carry the round of
  // this stage they come before.
  std::optional<std::size_t> prewrite;
  // The stages after this one start from its steady state (workload-
  // dependent preconditioning: CBW's, DIRTH's, HIR's): run.json lists it
  // under preconditioning, and a run that went on without it is flagged.
  bool preconditions = false;
};

struct QosCheck {
  IoOp op = IoOp::read;
  std::uint32_t bs = 4096;
  double quantile = 0.999;
  double limit_seconds = 0;
  std::size_t element = 0;  // the element of the (single) test stage measured
};

struct TestPlan {
  std::string test;
  PtsProfile profile = PtsProfile::enterprise;
  // The volatile write cache state the run sets on the drive: the profile's
  // (PTS-E disabled, PTS-C enabled).
  bool write_cache_enabled = false;
  ParamMap parameters;  // every effective parameter, defaults included
  bool destructive = true;
  bool purge = false;  // before the first stage
  std::vector<Stage> stages;
  std::vector<QosCheck> qos;
  std::string compare_label;  // non-empty: group 1 is a comparison run
  std::uint64_t tested_range_bytes = 0;
};

// What a plan needs to know about the target.
struct TargetFacts {
  std::uint64_t capacity_bytes = 0;
  double rated_dwpd = 0;  // 0: unknown
};

// A plan for a validated request. Throws ParamError only for what depends
// on the target (a default taken from its rating out of range).
TestPlan build_plan(const TestRequest& request, const TargetFacts& target);
// validate(test, params, profile), then the plan: throws ParamError for an
// unknown test, an unknown key or a bad value as well.
TestPlan build_plan(const std::string& test, const ParamMap& params, const TargetFacts& target,
                    PtsProfile profile = PtsProfile::enterprise);

// "4KiB", "0.5KiB", "1MiB": how PTS names block sizes.
std::string block_size_label(std::uint64_t bytes);

}  // namespace nvmond
