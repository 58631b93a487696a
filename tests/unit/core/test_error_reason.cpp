// The error reasons' one text table (core/error_reason.hpp): every reason
// reads back from its text, text that names none is refused, and the texts
// the exposition and JSON already carry stay as they were.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

std::vector<ErrorReason> every_reason() {
  return {
#define NVMOND_ERROR_REASON_VALUE(name) ErrorReason::name,
      NVMOND_ERROR_REASONS(NVMOND_ERROR_REASON_VALUE)
#undef NVMOND_ERROR_REASON_VALUE
  };
}

TEST(ErrorReason, EveryReasonReadsBackFromItsText) {
  for (ErrorReason r : every_reason()) {
    auto back = error_reason_from_text(to_text(r));
    ASSERT_TRUE(back.ok()) << to_text(r) << ": " << back.error().message;
    EXPECT_EQ(*back, r);
  }
}

TEST(ErrorReason, NoTwoReasonsShareAText) {
  std::set<std::string> texts;
  for (ErrorReason r : every_reason()) EXPECT_TRUE(texts.insert(std::string(to_text(r))).second) << to_text(r);
}

TEST(ErrorReason, TextThatNamesNoReasonIsADecodeError) {
  for (const char* text : {"", "Absent", "no_such_reason", "absent "}) {
    auto r = error_reason_from_text(text);
    ASSERT_FALSE(r.ok()) << '"' << text << '"';
    EXPECT_EQ(r.error().reason, ErrorReason::decode);
    EXPECT_NE(r.error().message.find(text), std::string::npos) << r.error().message;
  }
}

// Maps keyed by a reason render their series in this order; it must be the
// order of the label text, as it was when those maps were keyed by text.
TEST(ErrorReason, ReasonsAreInTheOrderOfTheirText) {
  const auto all = every_reason();
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_LT(to_text(all[i - 1]), to_text(all[i])) << "before " << to_text(all[i]);
    EXPECT_LT(all[i - 1], all[i]);
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
