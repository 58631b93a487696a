// What a run records as departing from the specification's parameters:
// one "parameter" condition per departure, naming the parameter, its value
// and the specification's; none for a PTS test at its defaults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pts/run_conditions.hpp"
#include "pts/steady_state.hpp"
#include "pts/plan.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr std::uint64_t kCapacity = 64'000'000'000;

std::vector<std::string> details(const std::string& test, const ParamMap& params,
                                 PtsProfile profile = PtsProfile::enterprise) {
  std::vector<std::string> out;
  for (const auto& c : parameter_conditions(build_plan(test, params, TargetFacts{kCapacity, 1}, profile))) {
    EXPECT_EQ(c.name, "parameter");
    out.push_back(c.detail);
  }
  return out;
}

TEST(ParameterConditions, PtsTestsAtTheirDefaultsHaveNone) {
  for (const char* test : {"iops", "throughput", "latency", "cbw", "dirth", "hir", "xsr", "precondition"}) {
    EXPECT_THAT(details(test, {}), IsEmpty()) << test;
  }
  EXPECT_THAT(details("wsat", {{"variant", "spec"}}), IsEmpty());
  // PTS-C's own defaults (75 % range, T2Q16) are its specification's.
  for (const char* test : {"iops", "throughput", "latency"}) {
    EXPECT_THAT(details(test, {}, PtsProfile::client), IsEmpty()) << test;
  }
  EXPECT_THAT(details("wsat", {{"variant", "spec"}}, PtsProfile::client), IsEmpty());
}

TEST(ParameterConditions, EachDepartureNamesTheParameterItsValueAndTheSpecifications) {
  EXPECT_THAT(details("iops", {{"round", "5s"}}), ElementsAre("round=5s (PTS: 60s)"));
  EXPECT_THAT(details("iops", {{"window", "4"}}), ElementsAre("window=4 (PTS: 5)"));
  EXPECT_THAT(details("iops", {{"max_rounds", "10"}}), ElementsAre("max_rounds=10 (PTS: 25)"));
  EXPECT_THAT(details("iops", {{"wipc_multiple", "1"}}), ElementsAre("wipc_multiple=1 (PTS: 2)"));
  EXPECT_THAT(details("iops", {{"wipc_threads", "4"}}), ElementsAre("wipc_threads=4 (PTS: 1)"));
  EXPECT_THAT(details("iops", {{"range", "0.5"}}), ElementsAre("range=0.5 (PTS: 1)"));
  EXPECT_THAT(details("iops", {{"range", "1"}}, PtsProfile::client), ElementsAre("range=1 (PTS: 0.75)"));
  EXPECT_THAT(details("latency", {{"queue_depth", "4"}}), ElementsAre("queue_depth=4 (PTS: 1)"));
  EXPECT_THAT(details("cbw", {{"max_rounds", "5"}}), ElementsAre("max_rounds=5 (PTS: 25)"));
  // CBW's inter-round pre-write rests on the public PTS scripts, which the
  // condition names as its source.
  EXPECT_THAT(details("cbw", {{"prewrite_rounds", "0"}}),
              ElementsAre("prewrite_rounds=0 (ECW scripts: 5 \u00d7 round)"));
  EXPECT_THAT(details("cbw", {{"prewrite_rounds", "2"}}),
              ElementsAre("prewrite_rounds=2 (ECW scripts: 5 \u00d7 round)"));
  // Several at once, each its own condition.
  EXPECT_EQ(details("throughput", {{"round", "5s"}, {"window", "4"}, {"purge", "false"}}).size(), 3U);
  // Without the WIPC its parameters do not count; leaving it out does.
  EXPECT_THAT(details("iops", {{"precondition", "false"}, {"wipc_multiple", "1"}}),
              ElementsAre("precondition=false (PTS: true)"));
}

TEST(ParameterConditions, TheThreadCountAndQueueDepthOfMostTestsAreTheOperatorsChoice) {
  EXPECT_THAT(details("iops", {{"threads", "8"}, {"queue_depth", "64"}}), IsEmpty());
  EXPECT_THAT(details("wsat", {{"variant", "spec"}, {"threads", "1"}}), IsEmpty());
}

TEST(ParameterConditions, TheReviewsLengthWsatSaysItIsNotThePtsLength) {
  EXPECT_THAT(details("wsat", {}), ElementsAre("variant=soak: 600 rounds (reviews), not PTS 6 h / 4\u00d7"));
  EXPECT_THAT(details("wsat", {{"rounds", "30"}}), ElementsAre(HasSubstr("30 rounds (reviews)")));
  EXPECT_THAT(details("wsat", {{"variant", "spec"}, {"capacity_multiple", "2"}}),
              ElementsAre(HasSubstr("(PTS: 4\u00d7 the user capacity)")));
}

TEST(ParameterConditions, TestsThatAreNotPtsTestsHaveNone) {
  for (const char* test : {"mixed", "vqd", "slc", "qos", "endurance"}) {
    EXPECT_THAT(details(test, {{"round", "5s"}}), IsEmpty()) << test;
  }
}

TEST(ParameterConditions, AFourRoundWindowIsNotCalledTheSpecifications) {
  SteadyStateRule rule;
  rule.window = 3;
  const auto err = validate(rule);
  ASSERT_TRUE(err);
  EXPECT_THAT(*err, Not(HasSubstr("SNIA")));
  EXPECT_THAT(*err, HasSubstr("reviews"));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
