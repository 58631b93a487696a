// [[drive]] ratings read the way [[sim]] reads them: rated_tbw as a number is
// terabytes, as a string a size.
#include <gtest/gtest.h>

#include "analytics/config.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

DriveRating rating(std::string_view body) {
  const toml::table t = toml::parse(body, std::string_view("drive.toml"));
  TableReader r(t, "drive.toml", "drive[0]");
  DriveRating d = read_drive_rating(r);
  r.finish();
  return d;
}

TEST(DriveRating, RatedTbwIsTerabytesAsANumberAndASizeAsAString) {
  EXPECT_EQ(rating("rated_tbw = 600\n").rated_tbw_bytes, 600'000'000'000'000ULL);
  EXPECT_EQ(rating("rated_tbw = 0.5\n").rated_tbw_bytes, 500'000'000'000ULL);
  EXPECT_EQ(rating("rated_tbw = \"600TB\"\n").rated_tbw_bytes, 600'000'000'000'000ULL);
  EXPECT_EQ(rating("rated_tbw = \"1PB\"\n").rated_tbw_bytes, 1'000'000'000'000'000ULL);
}

TEST(DriveRating, DwpdAndYearsStayAsGiven) {
  const DriveRating d = rating("rated_dwpd = 1.3\nwarranty_years = 5\n");
  EXPECT_DOUBLE_EQ(d.rated_dwpd.value(), 1.3);
  EXPECT_DOUBLE_EQ(d.warranty_years.value(), 5);
  EXPECT_FALSE(d.rated_tbw_bytes);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
