#include "pts/plan.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>
#include <stdexcept>

#include "core/clock.hpp"

namespace nvmond {

namespace {

constexpr std::uint64_t KiB = 1024;

// CBW (PTS-E's composite block-size workload: JEDEC JESD219's enterprise
// workload as fio's examples/jesd219.fio and the PTS scripts run it): block
// sizes by share of I/Os, every I/O at a 4 KiB-aligned offset, and three
// access ranges over the whole active range: half of the I/Os hit its first
// 5 %, 30 % the next 15 %, 20 % the remaining 80 %.
const std::vector<BlockSizeWeight> kCbwBlockSizes = {
    {512, 4},      {1024, 1},     {1536, 1},     {2048, 1},     {2560, 1},      {3072, 1},
    {3584, 1},     {4096, 67},    {8192, 10},    {16384, 7},    {32768, 3},     {65536, 3}};
const std::vector<AccessZone> kCbwZones = {{50, 5}, {30, 15}, {20, 80}};
constexpr std::uint32_t kCbwAlign = 4096;

std::string mix_label(double read_pct) {
  return fmt::format("{}/{}", static_cast<int>(read_pct), 100 - static_cast<int>(read_pct));
}

// Parameters every measuring test shares.
struct Common {
  unsigned threads;
  unsigned queue_depth;
  Duration round;
  double range;
  bool purge;
  bool precondition;
  SteadyStateRule rule;
};

// Each test's defaults for these are in its schema.
Common common(Params& p) {
  Common c;
  c.threads = static_cast<unsigned>(p.integer("threads"));
  c.queue_depth = static_cast<unsigned>(p.integer("queue_depth"));
  c.round = p.duration("round");
  c.range = p.number("range");
  c.purge = p.boolean("purge");
  c.precondition = p.boolean("precondition");
  c.rule.window = static_cast<int>(p.integer("window"));
  c.rule.max_rounds = static_cast<int>(p.integer("max_rounds"));
  return c;
}

Element element(std::uint64_t bs, double read_pct, AccessPattern pattern, const Common& c) {
  Element e;
  e.block_sizes = {BlockSizeWeight{static_cast<std::uint32_t>(bs), 1}};
  e.read_pct = read_pct;
  e.pattern = pattern;
  e.threads = c.threads;
  e.queue_depth = c.queue_depth;
  e.range_fraction = c.range;
  e.duration = c.round;
  e.label = pattern == AccessPattern::sequential
                ? fmt::format("SEQ {} {}", block_size_label(bs), read_pct >= 100 ? "read" : read_pct <= 0 ? "write" : mix_label(read_pct))
                : fmt::format("{} {}", block_size_label(bs), mix_label(read_pct));
  return e;
}

// Workload-independent preconditioning: SEQ `bs` writes (128 KiB unless a
// test names its own) of `multiple` × `user_bytes` over the first
// `range_fraction` of the target, in rounds so that progress is durable; the
// element's cursor carries on from round to round, so the writes sweep the
// whole range, again and again.
// PTS: 2 × the user capacity over the active range, whatever its size.
Stage wipc_stage(Params& p, const Common& c, std::uint64_t user_bytes, double range_fraction, int group,
                 std::uint64_t bs = 128 * KiB) {
  const double multiple = p.number("wipc_multiple");
  Common w = c;
  w.threads = static_cast<unsigned>(p.integer("wipc_threads"));
  w.queue_depth = static_cast<unsigned>(p.integer("wipc_queue_depth"));
  w.range = range_fraction;
  Stage s;
  s.phase = "precondition";
  s.kind = "workload-independent";
  s.group = group;
  s.elements = {element(bs, 0, AccessPattern::sequential, w)};
  s.max_rounds = 0;
  s.byte_budget = static_cast<std::uint64_t>(multiple * static_cast<double>(user_bytes));
  return s;
}

std::size_t find_element(const std::vector<Element>& elements, std::uint64_t bs, double read_pct) {
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].block_sizes[0].bytes == bs && elements[i].read_pct == read_pct) return i;
  }
  return elements.size() - 1;
}

Stage measured_stage(std::vector<Element> elements, const Common& c, std::vector<TrackedElement> tracked) {
  if (auto err = validate(c.rule)) throw ParamError(*err);
  Stage s;
  s.kind = "workload-dependent";
  s.elements = std::move(elements);
  s.max_rounds = c.rule.max_rounds;
  s.steady_state = SteadyStateTracking{c.rule, std::move(tracked), c.rule.max_rounds > 0};
  return s;
}

Stage measured_stage(std::vector<Element> elements, const Common& c, std::size_t tracked, TrackedVariable var) {
  return measured_stage(std::move(elements), c, {TrackedElement{tracked, var}});
}

// PTS-E 2.0.x IOPS: the IOPS of 4KiB 0/100, 64KiB 65/35 and 1024KiB 100/0,
// those of them the matrix has (4KiB 0/100's fallback when it has none).
std::vector<TrackedElement> iops_tracking(const std::vector<Element>& elements) {
  std::vector<TrackedElement> tracked;
  const std::pair<std::uint64_t, double> cells[] = {{4 * KiB, 0.0}, {64 * KiB, 65.0}, {1024 * KiB, 100.0}};
  for (const auto& [bs, read_pct] : cells) {
    const std::size_t i = find_element(elements, bs, read_pct);
    if (elements[i].block_sizes[0].bytes == bs && elements[i].read_pct == read_pct) {
      tracked.push_back({i, TrackedVariable::iops});
    }
  }
  if (tracked.empty()) tracked.push_back({find_element(elements, 4 * KiB, 0), TrackedVariable::iops});
  return tracked;
}

void add_preparation(TestPlan& plan, Params& p, const Common& c) {
  plan.purge = c.purge;
  // Before build_plan scales it by `range`, tested_range_bytes is the capacity.
  if (c.precondition) plan.stages.push_back(wipc_stage(p, c, plan.tested_range_bytes, c.range, 0));
}

using Builder = std::function<void(TestPlan&, Params&, const TargetFacts&)>;

void purge_plan(TestPlan& plan, Params&, const TargetFacts&) { plan.purge = true; }

void precondition_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  add_preparation(plan, p, c);
}

void iops_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  auto sizes = p.bytes_list("block_sizes");
  auto mixes = p.integer_list("read_pcts");
  std::vector<Element> elements;
  for (auto mix : mixes) {
    for (auto bs : sizes) elements.push_back(element(bs, static_cast<double>(mix), AccessPattern::random, c));
  }
  add_preparation(plan, p, c);
  auto tracked = iops_tracking(elements);
  plan.stages.push_back(measured_stage(std::move(elements), c, std::move(tracked)));
}

// Throughput as the specification runs it: one sub-test per block size,
// each with its own purge, its own WIPC at that block size and its own
// steady state on that block size's SEQ write bandwidth (reads are measured
// but not tracked). Block sizes run in the order given, 1 MiB first by
// default, and within a round reads (100/0) come before writes (0/100): the
// order of the specification's procedure as the PTS implementations we
// read it in run it (docs/pts.md, "Conformance").
void throughput_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto sizes = p.bytes_list("block_sizes");
  plan.purge = c.purge;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t first = plan.stages.size();
    if (c.precondition) plan.stages.push_back(wipc_stage(p, c, plan.tested_range_bytes, c.range, 0, sizes[i]));
    std::vector<Element> elements = {element(sizes[i], 100, AccessPattern::sequential, c),
                                     element(sizes[i], 0, AccessPattern::sequential, c)};
    plan.stages.push_back(measured_stage(std::move(elements), c, 1, TrackedVariable::bytes_per_second));
    // The first sub-test's purge is the run's own (plan.purge).
    if (i > 0) plan.stages[first].purge_before = c.purge;
  }
}

void latency_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  auto sizes = p.bytes_list("block_sizes");
  auto mixes = p.integer_list("read_pcts");
  std::vector<Element> elements;
  for (auto mix : mixes) {
    for (auto bs : sizes) elements.push_back(element(bs, static_cast<double>(mix), AccessPattern::random, c));
  }
  if (p.boolean("sweep")) {
    for (auto t : p.integer_list("sweep_threads")) {
      for (auto q : p.integer_list("sweep_queue_depths")) {
        Common s = c;
        s.threads = static_cast<unsigned>(std::max<std::int64_t>(1, t));
        s.queue_depth = static_cast<unsigned>(std::max<std::int64_t>(1, q));
        Element e = element(4 * KiB, 65, AccessPattern::random, s);
        e.label += fmt::format(" T{}Q{}", s.threads, s.queue_depth);
        elements.push_back(e);
      }
    }
  }
  add_preparation(plan, p, c);
  const std::size_t tracked = find_element(elements, 4096, 0);
  plan.stages.push_back(measured_stage(std::move(elements), c, tracked, TrackedVariable::mean_latency));
}

// WSAT's two variants (the `variant` parameter). "spec": the specification's
// stop at 6 hours or 4 × the user capacity written, whichever comes first (a
// given `rounds` caps it). "soak": the reviews' 10-hour run, rounds × round
// with no capacity stop.
constexpr Duration kSpecWsatTime = std::chrono::hours(6);
constexpr double kSpecWsatCapacityMultiple = 4;

int rounds_within(Duration limit, Duration round) {
  return static_cast<int>(std::ceil(seconds(limit) / seconds(round)));
}

void wsat_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  const double read_pct = p.number("read_pct");
  const bool spec = p.choice("variant") == "spec";
  // The soak's 600 rounds are no cap on the specification's 6 hours (30 s
  // rounds make 720 of them); a `rounds` the request gives is.
  int rounds = 0;
  if (!spec) {
    rounds = static_cast<int>(p.integer("rounds"));
  } else {
    rounds = rounds_within(kSpecWsatTime, c.round);
    if (p.given("rounds")) rounds = std::min(rounds, static_cast<int>(p.integer("rounds")));
  }
  // The specification's stop counts the user capacity; `capacity_multiple`
  // counts the tested range, so its default is 4 / range of it (PTS-C's
  // 75 % range: 5.33, which is 4 x the user capacity).
  const double budget = p.number("capacity_multiple", spec ? kSpecWsatCapacityMultiple / c.range : 0.0);
  add_preparation(plan, p, c);
  Stage s = measured_stage({element(bs, read_pct, AccessPattern::random, c)}, c, 0, TrackedVariable::iops);
  s.kind = "test";
  s.max_rounds = rounds;
  s.steady_state->rule.max_rounds = 0;  // a fixed-length soak, judged at its end
  s.steady_state->stop_when_reached = false;
  if (budget > 0) {
    s.byte_budget = static_cast<std::uint64_t>(std::llround(budget * c.range * static_cast<double>(plan.tested_range_bytes)));
  }
  plan.stages.push_back(std::move(s));
}

void mixed_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  const double read_pct = p.number("read_pct");
  const double reduced = p.number("reduced_range");
  add_preparation(plan, p, c);
  Element e = element(bs, read_pct, AccessPattern::random, c);
  plan.stages.push_back(measured_stage({e}, c, 0, TrackedVariable::iops));
  if (reduced <= 0 || reduced >= 1) return;
  // The comparison run: purge again, then the same on a smaller range (the
  // rest of the drive is extra over-provisioning).
  const double fraction = c.range * reduced;
  const std::size_t first = plan.stages.size();
  // The smaller drive it stands for has the reduced range as its capacity.
  const auto reduced_bytes = static_cast<std::uint64_t>(fraction * static_cast<double>(plan.tested_range_bytes));
  if (c.precondition) plan.stages.push_back(wipc_stage(p, c, reduced_bytes, fraction, 1));
  e.range_fraction = fraction;
  e.label += fmt::format(" range {:.0f}%", fraction * 100);
  Stage s = measured_stage({e}, c, 0, TrackedVariable::iops);
  s.group = 1;
  plan.stages.push_back(std::move(s));
  plan.stages[first].purge_before = c.purge;
  plan.compare_label = fmt::format("reduced range {:.0f}%", fraction * 100);
}

void vqd_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  const double read_pct = p.number("read_pct");
  std::vector<Element> elements;
  for (auto t : p.integer_list("thread_counts")) {
    for (auto q : p.integer_list("queue_depths")) {
      Common s = c;
      s.threads = static_cast<unsigned>(std::max<std::int64_t>(1, t));
      s.queue_depth = static_cast<unsigned>(std::max<std::int64_t>(1, q));
      Element e = element(bs, read_pct, AccessPattern::random, s);
      e.label += fmt::format(" T{}Q{}", s.threads, s.queue_depth);
      elements.push_back(e);
    }
  }
  add_preparation(plan, p, c);
  Stage s;
  s.kind = "test";
  s.elements = std::move(elements);
  s.max_rounds = std::max(1, c.rule.max_rounds);
  plan.stages.push_back(std::move(s));
}

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
// pts/run_json.cpp). `prewrite_rounds` > 0: before each sweep round, that
// many `round`-long runs of the pattern at 0/100 at the preconditioning's
// load (CBW's inter-round pre-write).
using SweepElement = std::function<Element(double read_pct, unsigned threads, unsigned queue_depth)>;

void demand_intensity_plan(TestPlan& plan, Params& p, const Common& c, double precondition_read_pct,
                           const SweepElement& make, int prewrite_rounds = 0) {
  plan.purge = c.purge;
  if (c.precondition) {
    Stage pre = measured_stage({make(precondition_read_pct, c.threads, c.queue_depth)}, c, 0, TrackedVariable::iops);
    pre.phase = "precondition";
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
    h.phase = "histogram";
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
    w.phase = kPrewritePhase;
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
  Element e = element(4 * KiB, read_pct, AccessPattern::random, at);
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
      plan, p, c, 0,
      [&c](double read_pct, unsigned t, unsigned q) { return cbw_element(read_pct, t, q, c); },
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

std::string seconds_label(Duration d) { return fmt::format("{:g}s", seconds(d)); }

// HIR (host idle recovery) as PTS-E runs it: purge; RND 4 KiB writes in
// `round` (30 min) rounds until their IOPS is steady (the drive's baseline);
// then, for each idle length (5, 10, 15, 25, 50 s), `bursts` (360) rounds of
// a `burst` (5 s) of the same writes each followed by that long with no host
// I/O, and a return to baseline: `baseline_bursts` (360) bursts back to back,
// 30 minutes of continuous writes. No SEQ WIPC. Each burst's IOPS is a round,
// so the report plots IOPS against time with the idle periods between.
void hir_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  plan.purge = c.purge;
  const Element writes = element(4 * KiB, 0, AccessPattern::random, c);
  if (c.precondition) {
    // Its rounds stay test rounds: the report plots the wait states
    // against this steady state, and run.json's measurement window is its.
    Stage pre = measured_stage({writes}, c, 0, TrackedVariable::iops);
    pre.label = "steady state";
    pre.preconditions = true;
    plan.stages.push_back(std::move(pre));
  }
  const Duration burst = p.duration("burst");
  const auto bursts = static_cast<int>(p.integer("bursts"));
  const auto baseline = static_cast<int>(p.integer("baseline_bursts"));
  for (const auto idle_s : p.integer_list("idle_seconds")) {
    const Duration idle = std::chrono::seconds(idle_s);
    Element b = writes;
    b.duration = burst;
    b.idle_after = idle;
    b.label = fmt::format("{} {} + idle {}", writes.label, seconds_label(burst), seconds_label(idle));
    Stage wait;
    wait.kind = "test";
    wait.label = fmt::format("wait state {}/{}", seconds_label(burst), seconds_label(idle));
    wait.elements = {b};
    wait.max_rounds = bursts;
    plan.stages.push_back(std::move(wait));
    if (baseline <= 0) continue;
    Element w = writes;
    w.duration = burst;
    w.label = fmt::format("{} {} baseline", writes.label, seconds_label(burst));
    Stage back;
    back.kind = "test";
    back.label = fmt::format("baseline after {}", seconds_label(idle));
    back.elements = {w};
    back.max_rounds = baseline;
    plan.stages.push_back(std::move(back));
  }
}

// XSR (cross stimulus recovery): purge, then three access groups back to
// back, each a fixed length of `round` rounds: SEQ `seq_bs` (1 MiB) writes
// for `seq_duration` (8 h), RND `rnd_bs` (8 KiB) writes for `rnd_duration`
// (6 h), SEQ `seq_bs` writes again for `recovery_duration` (8 h), at T1Q32.
// Each group's throughput is judged for steady state over its last rounds
// (not to stop it: the groups' lengths are the test), and the report plots
// throughput against time across the two transitions.
void xsr_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  add_preparation(plan, p, c);
  const auto seq = p.bytes("seq_bs");
  const auto rnd = p.bytes("rnd_bs");
  const std::tuple<std::uint64_t, AccessPattern, Duration> groups[] = {
      {seq, AccessPattern::sequential, p.duration("seq_duration")},
      {rnd, AccessPattern::random, p.duration("rnd_duration")},
      {seq, AccessPattern::sequential, p.duration("recovery_duration")}};
  int n = 0;
  for (const auto& [bs, pattern, length] : groups) {
    Stage s = measured_stage({element(bs, 0, pattern, c)}, c, 0, TrackedVariable::bytes_per_second);
    s.kind = "test";
    s.label = fmt::format("AG{} {}", ++n, s.elements.front().label);
    s.max_rounds = std::max(1, rounds_within(length, c.round));
    s.steady_state->rule.max_rounds = 0;
    s.steady_state->stop_when_reached = false;
    plan.stages.push_back(std::move(s));
  }
}

void slc_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  SlcDetection d;
  d.drop_fraction = p.number("drop_fraction");
  d.drop_rounds = static_cast<int>(p.integer("drop_rounds"));
  const auto bs = p.bytes("bs");
  add_preparation(plan, p, c);
  Stage s;
  s.kind = "test";
  s.elements = {element(bs, 0, AccessPattern::sequential, c)};
  s.max_rounds = c.rule.max_rounds;
  s.byte_budget = static_cast<std::uint64_t>(static_cast<double>(plan.tested_range_bytes) * c.range);  // one pass at most
  s.slc = d;
  plan.stages.push_back(std::move(s));
}

void qos_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  // The quantiles every round records (run.json latency_s).
  const double q = std::stod(p.choice("quantile"));
  const double read_limit = seconds(p.duration("read_limit"));
  const double write_limit = seconds(p.duration("write_limit"));
  add_preparation(plan, p, c);
  Stage s;
  s.kind = "test";
  s.elements = {element(bs, 100, AccessPattern::random, c), element(bs, 0, AccessPattern::random, c)};
  s.max_rounds = std::max(1, c.rule.max_rounds);
  plan.stages.push_back(std::move(s));
  const auto b = static_cast<std::uint32_t>(bs);
  plan.qos = {QosCheck{IoOp::read, b, q, read_limit, 0}, QosCheck{IoOp::write, b, q, write_limit, 1}};
}

void endurance_plan(TestPlan& plan, Params& p, const TargetFacts& t) {
  Common c = common(p);
  const double dwpd = p.number("dwpd", t.rated_dwpd > 0 ? t.rated_dwpd : 1.0);
  const Duration total = p.duration("duration");
  const auto bs = p.bytes("bs");
  add_preparation(plan, p, c);
  Element e = element(bs, 0, AccessPattern::random, c);
  e.rate_bytes_per_second = dwpd * static_cast<double>(t.capacity_bytes) / kSecondsPerDay;
  e.label += fmt::format(" {} DWPD", dwpd);
  Stage s;
  s.kind = "test";
  s.elements = {e};
  s.max_rounds = static_cast<int>(std::ceil(seconds(total) / seconds(c.round)));
  plan.stages.push_back(std::move(s));
}

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> m = {
      {"purge", purge_plan},   {"precondition", precondition_plan}, {"iops", iops_plan},
      {"throughput", throughput_plan}, {"latency", latency_plan}, {"wsat", wsat_plan},
      {"mixed", mixed_plan},   {"vqd", vqd_plan},  {"cbw", cbw_plan},  {"dirth", dirth_plan},
      {"slc", slc_plan},       {"qos", qos_plan},  {"endurance", endurance_plan},
      {"hir", hir_plan},       {"xsr", xsr_plan}};
  return m;
}

}  // namespace

std::string block_size_label(std::uint64_t bytes) {
  if (bytes % (1024 * KiB) == 0) return fmt::format("{}MiB", bytes / (1024 * KiB));
  if (bytes % KiB == 0) return fmt::format("{}KiB", bytes / KiB);
  if (bytes % 512 == 0) return fmt::format("{}KiB", static_cast<double>(bytes) / KiB);
  return fmt::format("{}B", bytes);
}

TestPlan build_plan(const TestRequest& request, const TargetFacts& target) {
  check_request(request);
  auto it = builders().find(request.test);
  if (it == builders().end()) throw std::logic_error("test " + request.test + " has a schema and no plan");
  Params p(request);
  TestPlan plan;
  plan.test = request.test;
  plan.profile = request.profile;
  plan.write_cache_enabled = profile_spec(request.profile).write_cache_enabled;
  plan.tested_range_bytes = target.capacity_bytes;  // builders scale it by `range`
  it->second(plan, p, target);
  auto r = p.effective().find("range");
  if (r != p.effective().end()) {
    plan.tested_range_bytes = static_cast<std::uint64_t>(std::stod(r->second) * static_cast<double>(target.capacity_bytes));
  }
  plan.parameters = p.effective();
  return plan;
}

TestPlan build_plan(const std::string& test, const ParamMap& params, const TargetFacts& target,
                    PtsProfile profile) {
  return build_plan(validate(test, params, profile), target);
}

}  // namespace nvmond
