// quick, the reviews' first look: CrystalDiskMark's four loads, each read
// then written for one round, on the drive as it is, and honest that it is
// no PTS test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "pts/plan.hpp"
#include "pts/run_conditions.hpp"
#include "pts/catalog.hpp"
#include "pts/tests/definition.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;

const TargetFacts kDrive{1'000'000'000'000ULL, 1.0};

TEST(QuickTest, RunsTheFourLoadsEachReadThenWrittenForOneRound) {
  const TestPlan p = build_plan("quick", {}, kDrive);
  ASSERT_EQ(p.stages.size(), 1u);
  const Stage& s = p.stages[0];
  const std::vector<std::string> labels = {"SEQ 1MiB read T1Q8",  "SEQ 1MiB write T1Q8", "SEQ 1MiB read T1Q1",
                                           "SEQ 1MiB write T1Q1", "4KiB 100/0 T1Q32",    "4KiB 0/100 T1Q32",
                                           "4KiB 100/0 T1Q1",     "4KiB 0/100 T1Q1"};
  ASSERT_EQ(s.elements.size(), labels.size());
  const unsigned depths[] = {8, 8, 1, 1, 32, 32, 1, 1};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Element& e = s.elements[i];
    EXPECT_EQ(e.label, labels[i]);
    EXPECT_EQ(e.threads, 1u) << e.label;
    EXPECT_EQ(e.queue_depth, depths[i]) << e.label;
    EXPECT_EQ(e.read_pct, i % 2 == 0 ? 100.0 : 0.0) << e.label;
    EXPECT_EQ(e.pattern, i < 4 ? AccessPattern::sequential : AccessPattern::random) << e.label;
    EXPECT_EQ(e.block_sizes.at(0).bytes, i < 4 ? 1024u * 1024u : 4096u) << e.label;
    EXPECT_EQ(e.duration, std::chrono::seconds(5)) << e.label;
  }
  EXPECT_EQ(s.max_rounds, 1);
  EXPECT_FALSE(s.steady_state);
  // The drive as it is: no purge and no preconditioning unless asked.
  EXPECT_FALSE(p.purge);
  EXPECT_EQ(s.phase, Phase::test);
}

TEST(QuickTest, ItsRoundRangeAndPurgeAreParametersAndItsLoadsAreNot) {
  const TestPlan p = build_plan("quick", {{"round", "1s"}, {"range", "0.5"}, {"purge", "true"}}, kDrive);
  EXPECT_TRUE(p.purge);
  EXPECT_EQ(p.tested_range_bytes, kDrive.capacity_bytes / 2);
  for (const auto& e : p.stages.at(0).elements) {
    EXPECT_EQ(e.duration, std::chrono::seconds(1)) << e.label;
    EXPECT_EQ(e.range_fraction, 0.5) << e.label;
  }
  EXPECT_THROW(validate("quick", {{"threads", "4"}}), ParamError);
  EXPECT_THROW(validate("quick", {{"queue_depth", "4"}}), ParamError);
  EXPECT_THROW(validate("quick", {{"round", "0s"}}), ParamError);
}

TEST(QuickTest, IsListedAfterThePtsAndReviewTestsAndIsNoPtsTest) {
  EXPECT_EQ(test_names().back(), "quick");
  const TestDefinition* d = find_test_definition("quick");
  ASSERT_NE(d, nullptr);
  // Nothing treats it apart: the report draws its generic tables.
  EXPECT_FALSE(d->kind().has_value());
  EXPECT_THAT(test_bases().at("quick"), HasSubstr("CrystalDiskMark"));
  EXPECT_TRUE(parameter_conditions(build_plan("quick", {{"round", "1s"}}, kDrive)).empty());
  // A PTS-C run of it is refused: the profile has no such test.
  EXPECT_THROW(validate("quick", {}, PtsProfile::client), ParamError);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
