#include <gtest/gtest.h>

#include "pts/run_eta.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

Stage rounds_of(int max_rounds, std::chrono::seconds each, std::size_t elements = 1) {
  Stage s;
  s.elements.assign(elements, Element{});
  for (auto& e : s.elements) e.duration = each;
  s.max_rounds = max_rounds;
  return s;
}

// A steady-state stage (at most 25 one-minute rounds) and a 5-round stage after it.
TestPlan steady_then_fixed() {
  TestPlan plan;
  plan.stages.push_back(rounds_of(25, std::chrono::seconds(60)));
  plan.stages.back().steady_state = SteadyStateTracking{};
  plan.stages.push_back(rounds_of(5, std::chrono::seconds(60)));
  return plan;
}

TEST(RunEta, AStageThatReachedSteadyStateCountsNoneOfItsRoundsLeft) {
  // Round 6 of 25 reached steady state: only the next stage's 5 minutes are left.
  EXPECT_EQ(run_eta_seconds(steady_then_fixed(), RunPosition{0, 6, 0, true, 1e6}), 300.0);
}

TEST(RunEta, AStageStillSeekingSteadyStateCountsItsLimitAndTheStagesAfterIt) {
  EXPECT_EQ(run_eta_seconds(steady_then_fixed(), RunPosition{0, 6, 0, false, 1e6}), (19 + 5) * 60.0);
}

TEST(RunEta, ElementsTakingTurnsEachCountTheirOwnLength) {
  TestPlan plan;
  plan.stages.push_back(rounds_of(2, std::chrono::seconds(10), 2));
  plan.stages.back().elements[1].duration = std::chrono::seconds(30);
  // Element rounds 10 s, 30 s, 10 s, 30 s; one done.
  EXPECT_EQ(run_eta_seconds(plan, RunPosition{0, 1, 0, false, 0}), 70.0);
}

TEST(RunEta, AByteBudgetIsSpentAtTheLastRoundsRate) {
  TestPlan plan;
  plan.stages.push_back(rounds_of(0, std::chrono::seconds(60)));
  plan.stages.back().byte_budget = 1'000'000;
  plan.stages.push_back(rounds_of(1, std::chrono::seconds(60)));
  EXPECT_EQ(run_eta_seconds(plan, RunPosition{0, 1, 400'000, false, 1000}), 600.0 + 60.0);
  EXPECT_EQ(run_eta_seconds(plan, RunPosition{0, 1, 400'000, false, 0}), std::nullopt);
}

// CBW's pre-write runs before each round of its sweep: a stage of its own,
// last in the plan, whose time counts before each sweep round not yet begun.
TEST(RunEta, APreWriteCountsBeforeEachRoundOfItsStageNotYetBegun) {
  TestPlan plan;
  plan.stages.push_back(rounds_of(3, std::chrono::seconds(10), 2));  // 3 rounds of 2 x 10 s
  plan.stages.push_back(rounds_of(2, std::chrono::seconds(5)));      // the pre-write: 2 x 5 s per round
  plan.stages.back().phase = Phase::prewrite;
  plan.stages.front().prewrite = 1;
  EXPECT_EQ(run_eta_seconds(plan, RunPosition{0, 0, 0, false, 0}), 3 * (10.0 + 20.0));
  // One element of round 1 done: its pre-write is over, two rounds' are not.
  EXPECT_EQ(run_eta_seconds(plan, RunPosition{0, 1, 0, false, 0}), 10.0 + 2 * (10.0 + 20.0));
  EXPECT_EQ(run_eta_seconds(plan, RunPosition{0, 6, 0, true, 0}), 0.0);
}

TEST(RunEta, TheLastRoundOfTheLastStageLeavesNothing) {
  EXPECT_EQ(run_eta_seconds(steady_then_fixed(), RunPosition{1, 5, 0, true, 1e6}), 0.0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
