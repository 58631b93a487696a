#include "pts/tests/definition.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <tuple>

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

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
  const Element writes = element(4 * kKiB, 0, AccessPattern::random, c);
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
// for `seq_duration` (8 h), RND `rnd_bs` (8 kKiB) writes for `rnd_duration`
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

// PTS-E HIR: `round` is a preconditioning round of RND 4KiB writes (30 min,
// as cloudharmony's 30 one-minute intervals), `precondition` those rounds
// until steady; then the wait states.
TestSchema hir_schema() {
  return with_own_preconditioning(
      measuring("host idle recovery", {4, 32, std::chrono::minutes(30), true, true, 25},
                {duration("burst", std::chrono::seconds(5), "length of each write burst"),
                 integer("bursts", 360, 1, 1'000'000, "bursts per wait state"),
                 integer_list("idle_seconds", {5, 10, 15, 25, 50}, 86'400,
                              "host idle after each burst, in seconds: one wait state each, in this order"),
                 integer("baseline_bursts", 360, 0, 1'000'000,
                         "back-to-back bursts returning to baseline after each wait state (0: none)")},
                true),
      "RND 4KiB writes in round-long rounds until their IOPS is steady first");
}

// PTS-E XSR: three access groups of fixed length at T1Q32.
TestSchema xsr_schema() {
  using std::chrono::hours;
  return measuring("cross stimulus recovery", {1, 32, std::chrono::seconds(60), true, false, 0},
                   {bytes("seq_bs", 1024 * kKiB, "block size of the sequential access groups 1 and 3"),
                    bytes("rnd_bs", 8 * kKiB, "block size of the random access group 2"),
                    duration("seq_duration", hours(8), "length of access group 1 (SEQ writes)"),
                    duration("rnd_duration", hours(6), "length of access group 2 (RND writes)"),
                    duration("recovery_duration", hours(8), "length of access group 3 (SEQ writes again)")},
                   true);
}

}  // namespace

std::vector<TestDefinition> hir_xsr_tests() {
  return {
      {.name = "hir",
       .rank = 140,
       .schema = hir_schema(),
       .build = hir_plan,
       .spec =
           SpecConditions{{"round", "max_rounds", "precondition", "burst", "bursts", "idle_seconds", "baseline_bursts"},
                          nullptr}},
      {.name = "xsr",
       .rank = 150,
       .schema = xsr_schema(),
       .build = xsr_plan,
       .spec = SpecConditions{{"round", "precondition", "seq_bs", "rnd_bs", "seq_duration", "rnd_duration",
                               "recovery_duration"},
                              nullptr}},
  };
}

}  // namespace nvmond
