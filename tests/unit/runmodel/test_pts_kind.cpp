// A test's kind as text only through its one table: every kind has a name
// that reads back as itself, and the schemas carry the kind their name says.
#include <gtest/gtest.h>

#include <string>

#include "runmodel/request.hpp"
#include "runmodel/pts_kind.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(TestKind, EverySchemasNameReadsBackAsItsKind) {
  for (const auto& s : test_schemas()) {
    const auto kind = test_kind_from_name(s.test);
    ASSERT_TRUE(kind.has_value()) << s.test;
    EXPECT_EQ(*kind, s.kind) << s.test;
    EXPECT_EQ(std::string(test_kind_name(s.kind)), s.test);
    EXPECT_EQ(&test_schema(s.kind), &s) << s.test;
  }
}

TEST(TestKind, ANameThatIsNoTestIsNone) {
  EXPECT_FALSE(test_kind_from_name("").has_value());
  EXPECT_FALSE(test_kind_from_name("HIR").has_value());
  EXPECT_FALSE(test_kind_from_name("wsat ").has_value());
}

TEST(TestKind, TheClientProfilesSchemasKeepTheirKind) {
  for (const auto& s : test_schemas(PtsProfile::client)) EXPECT_EQ(test_kind_name(s.kind), s.test);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
