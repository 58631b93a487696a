// A stage's phase and a steady state's variable as text only through their
// tables: every value reads back as itself from the text run.json and
// runs.db hold, and text that is neither (an empty phase in old runs) is
// no value.
#include <gtest/gtest.h>

#include <string>

#include "runmodel/stage_phase.hpp"
#include "runmodel/tracked_variable.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(StagePhase, EachPhaseReadsBackFromTheTextRoundsRecord) {
  for (const char* text : {"precondition", "test", "histogram", "prewrite"}) {
    const auto phase = phase_from_name(text);
    ASSERT_TRUE(phase.has_value()) << text;
    EXPECT_EQ(std::string(phase_name(*phase)), text);
  }
  EXPECT_EQ(phase_from_name("test"), Phase::test);
  EXPECT_FALSE(phase_from_name("").has_value());
  EXPECT_FALSE(phase_from_name("steady").has_value());
}

TEST(TrackedVariableText, EachVariableReadsBackFromTheTextRunJsonRecords) {
  for (const char* text : {"iops", "bytes_per_second", "mean_latency_s"}) {
    const auto v = tracked_variable_from_name(text);
    ASSERT_TRUE(v.has_value()) << text;
    EXPECT_EQ(std::string(tracked_variable_name(*v)), text);
  }
  EXPECT_EQ(tracked_variable_from_name("iops"), TrackedVariable::iops);
  EXPECT_FALSE(tracked_variable_from_name("").has_value());
  EXPECT_FALSE(tracked_variable_from_name("mean_latency").has_value());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
