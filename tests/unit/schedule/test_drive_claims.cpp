// One place knows who uses a drive: a second claim on a serial is refused
// with the holder named, a released (or destroyed) claim frees the drive,
// and a claim outliving its registry is harmless.
#include <gtest/gtest.h>

#include "schedule/drive_claims.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

const WallTime kT0 = WallTime{} + 24h * 20000 + 3h + 4min + 5s;

TEST(DriveClaims, ASecondClaimIsRefusedNamingTheHolder) {
  DriveClaims claims;
  auto test = claims.claim("SN-A", DriveUse{DriveUse::Kind::self_test, "extended", kT0});
  ASSERT_TRUE(test);
  auto run = claims.claim("SN-A", DriveUse{DriveUse::Kind::run, "wsat-3", kT0});
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().reason, ErrorReason::busy);
  EXPECT_EQ(run.error().message, "drive SN-A is running an extended self-test (started at 2024-10-04T03:04:05Z)");
  EXPECT_TRUE(claims.claim("SN-B", DriveUse{DriveUse::Kind::run, "wsat-4", kT0})) << "another drive is free";
}

TEST(DriveClaims, TheOtherOrderIsRefusedToo) {
  DriveClaims claims;
  auto run = claims.claim("SN-A", DriveUse{DriveUse::Kind::run, "wsat-3", kT0});
  ASSERT_TRUE(run);
  auto test = claims.claim("SN-A", DriveUse{DriveUse::Kind::self_test, "short", kT0});
  ASSERT_FALSE(test);
  EXPECT_EQ(test.error().message, "drive SN-A is in use by run wsat-3");
  EXPECT_EQ(claims.holder("SN-A")->who, "wsat-3");
}

TEST(DriveClaims, AReleasedOrDestroyedClaimFreesTheDrive) {
  DriveClaims claims;
  {
    auto job = claims.claim("SN-A", DriveUse{DriveUse::Kind::job, "fio-1", kT0});
    ASSERT_TRUE(job);
    EXPECT_EQ(describe_use("SN-A", *claims.holder("SN-A")), "drive SN-A is in use by job fio-1");
  }
  EXPECT_FALSE(claims.holder("SN-A"));
  auto run = claims.claim("SN-A", DriveUse{DriveUse::Kind::run, "w", kT0});
  ASSERT_TRUE(run);
  run->rename(DriveUse{DriveUse::Kind::run, "w-7", kT0});
  EXPECT_EQ(claims.holder("SN-A")->who, "w-7");
  DriveClaim moved = std::move(*run);
  EXPECT_TRUE(claims.holder("SN-A")) << "a moved claim still holds";
  moved.release();
  EXPECT_FALSE(claims.holder("SN-A"));
}

TEST(DriveClaims, ATestSeenInTheLogButStartedByNoOneHereSaysSo) {
  EXPECT_EQ(describe_use("SN-A", DriveUse{DriveUse::Kind::self_test, "short", std::nullopt}),
            "drive SN-A is running a short self-test (seen running in its self-test log)");
}

TEST(DriveClaims, AClaimMayOutliveItsRegistry) {
  DriveClaim held;
  {
    DriveClaims claims;
    held = std::move(*claims.claim("SN-A", DriveUse{}));
  }
  held.release();  // nothing to release into: no crash
  EXPECT_FALSE(held.held());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
