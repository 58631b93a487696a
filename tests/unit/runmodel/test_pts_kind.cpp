// A test's kind as text only through its one table: a name that is no kind
// is none (that every kind is a test's is tests/unit/pts's to check).
#include <gtest/gtest.h>

#include <string>

#include "runmodel/pts_kind.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(TestKind, EveryKindsNameReadsBackAsItself) {
  for (auto kind : {TestKind::purge, TestKind::wsat, TestKind::cbw, TestKind::xsr}) {
    EXPECT_EQ(test_kind_from_name(test_kind_name(kind)), kind) << test_kind_name(kind);
  }
}

TEST(TestKind, ANameThatIsNoTestIsNone) {
  EXPECT_FALSE(test_kind_from_name("").has_value());
  EXPECT_FALSE(test_kind_from_name("HIR").has_value());
  EXPECT_FALSE(test_kind_from_name("wsat ").has_value());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
