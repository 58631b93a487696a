// Each OCP panic is logged once: a new ID or a rising count is news; the
// same standing panic read again is not.
#include <gtest/gtest.h>

#include "drivelog/ocp_panic_tracker.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

OcpErrorRecoveryLog panic(std::uint64_t id, std::uint8_t count) {
  OcpErrorRecoveryLog log;
  log.panic_id = id;
  log.panic_count = count;
  log.panic_reset_action = 0x01;
  log.panic_reset_wait_time_ms = 500;
  log.device_recovery_action_1 = 1;
  return log;
}

TEST(OcpPanicTracker, ReportsEachPanicOnce) {
  OcpPanicTracker t;
  EXPECT_FALSE(t.update(panic(0, 0)));  // no panic
  auto first = t.update(panic(0xabc, 1));
  ASSERT_TRUE(first);
  EXPECT_EQ(*first,
            "panic 0xabc (panic count 1): reset action controller_reset, wait 500 ms; recovery action format_nvm");
  EXPECT_FALSE(t.update(panic(0xabc, 1)));  // the same panic, read again
  EXPECT_TRUE(t.update(panic(0xabc, 2)));   // the same ID once more: the count rose
  EXPECT_FALSE(t.update(panic(0, 2)));      // recovered
  EXPECT_TRUE(t.update(panic(0xdef, 3)));   // a new one
}

TEST(OcpPanicTracker, AStandingPanicAtStartIsNewsAndASecondActionIsNamed) {
  OcpPanicTracker t;
  auto log = panic(0x77, 4);
  log.device_recovery_action_2 = 4;
  auto line = t.update(log);
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("; then device_replacement"), std::string::npos) << *line;
}

// A drive that changes panic IDs without counting (count saturated at 255)
// still gets each logged.
TEST(OcpPanicTracker, ANewIdAtASaturatedCountIsNews) {
  OcpPanicTracker t;
  EXPECT_TRUE(t.update(panic(1, 255)));
  EXPECT_TRUE(t.update(panic(2, 255)));
  EXPECT_FALSE(t.update(panic(2, 255)));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
