// `profile` in [[soak]]: the PTS profile a soak's test runs under, checked
// when the configuration loads (file:line:col), carried in the typed request
// to the plan, and part of what makes a reloaded soak a changed one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "pts/plan.hpp"
#include "services/config.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;

DaemonConfig load(const test::TempDir& dir, const std::string& soak_lines) {
  const std::string path = dir.path() + "/nvmond.toml";
  std::ofstream(path) << "[[sim]]\nname = \"c0\"\nserial = \"C0\"\n\n[[soak]]\nname = \"c0-soak\"\n"
                         "target = \"sim:c0\"\n"
                      << soak_lines;
  return load_config(path);
}

TEST(SoakProfile, ClientRunsTheTestUnderPtsCsConditions) {
  test::TempDir dir;
  const DaemonConfig c = load(dir, "test = \"iops\"\nprofile = \"client\"\nparams = { round = \"2s\" }\n");
  ASSERT_EQ(c.soaks.size(), 1U);
  EXPECT_EQ(c.soaks[0].request.profile, PtsProfile::client);
  const TestPlan p = build_plan(c.soaks[0].request, TargetFacts{1'000'000'000'000ULL, 0});
  EXPECT_TRUE(p.write_cache_enabled);
  EXPECT_EQ(p.parameters.at("range"), "0.75");
  EXPECT_EQ(p.parameters.at("threads"), "2");
  EXPECT_EQ(p.parameters.at("round"), "2s");
}

TEST(SoakProfile, WithoutTheKeyASoakIsEnterprise) {
  test::TempDir dir;
  const DaemonConfig c = load(dir, "test = \"cbw\"\n");
  EXPECT_EQ(c.soaks[0].request.profile, PtsProfile::enterprise);
  EXPECT_EQ(load(dir, "test = \"wsat\"\nprofile = \"enterprise\"\n").soaks[0].request.profile, PtsProfile::enterprise);
}

TEST(SoakProfile, AnUnknownProfileOrATestItLacksFailsAtTheKey) {
  test::TempDir dir;
  const std::string unknown = test::config_error_of([&] { load(dir, "test = \"iops\"\nprofile = \"consumer\"\n"); });
  EXPECT_THAT(unknown, HasSubstr("nvmond.toml:9:"));
  EXPECT_THAT(unknown, HasSubstr("\"consumer\" is not one of \"enterprise\", \"client\""));
  const std::string lacking = test::config_error_of([&] { load(dir, "test = \"cbw\"\nprofile = \"client\"\n"); });
  EXPECT_THAT(lacking, HasSubstr("nvmond.toml:9:"));
  EXPECT_THAT(lacking, HasSubstr("cbw is not a test of the client profile"));
  // Parameters are checked against the profile's test.
  EXPECT_THAT(
      test::config_error_of([&] { load(dir, "test = \"wsat\"\nprofile = \"client\"\nparams = { threads = 0 }\n"); }),
      HasSubstr("nvmond.toml:10:"));
}

TEST(SoakProfile, ChangingTheProfileChangesTheSoak) {
  test::TempDir dir;
  const SoakEntry enterprise = load(dir, "test = \"iops\"\n").soaks[0].entry();
  const SoakEntry client = load(dir, "test = \"iops\"\nprofile = \"client\"\n").soaks[0].entry();
  EXPECT_NE(enterprise.normalized(), client.normalized());
  EXPECT_THAT(client.normalized(), HasSubstr("profile=client\n"));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
