// read_jobs_config: [[job]] and [safety] in the daemon's file or a job file, with positions.
#include "workloads/jobs_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/config_error.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;

JobsConfig read_root(toml::table root, const std::string& file, const std::vector<std::string>& sims = {"SIM0"}) {
  TableReader r(root, file, "");
  JobsConfig c = read_jobs_config(r, &sims);
  r.finish();  // whatever the caller did not read
  return c;
}

JobsConfig read(const std::string& text, const std::vector<std::string>& sims = {"SIM0"}) {
  return read_root(toml::parse(std::string_view(text), std::string_view("nvmond.toml")), "nvmond.toml", sims);
}

std::string error_of(const std::string& text, const std::vector<std::string>& sims = {"SIM0"}) {
  return test::config_error_of([&] { read(text, sims); });
}

TEST(JobsConfig, ReadsJobsAndSafety) {
  const std::string path = test::fixture_path("workloads/daemon_jobs.toml");
  JobsConfig c = read_root(parse_toml_file(path), path);
  ASSERT_EQ(c.jobs.size(), 2u);
  EXPECT_EQ(c.jobs[0].name, "soak");
  EXPECT_EQ(c.jobs[0].engine, "sim");
  EXPECT_EQ(c.jobs[1].engine, "io_uring");
  EXPECT_EQ(c.safety.allow_serials, (std::vector<std::string>{"S1", "S2"}));
  EXPECT_EQ(c.safety.allow_dirs, (std::vector<std::string>{"/var/lib/nvmond/scratch"}));
}

TEST(JobsConfig, NoJobsIsFine) {
  JobsConfig c = read("");
  EXPECT_TRUE(c.jobs.empty());
  EXPECT_TRUE(c.safety.allow_serials.empty());
}

TEST(JobsConfig, LeavesOtherKeysToTheCaller) {
  EXPECT_THAT(error_of("[daemon]\nlisten = \"x\"\n[[job]]\nname = \"a\"\ntarget = \"/tmp/f\"\n"), HasSubstr("daemon"));
}

TEST(JobsConfig, DuplicateNamesArePositioned) {
  EXPECT_THAT(error_of("[[job]]\nname = \"a\"\ntarget = \"/tmp/f\"\n"
                       "[[job]]\nname = \"a\"\ntarget = \"/tmp/g\"\n"),
              HasSubstr("nvmond.toml:5:8: job[1].name: duplicate job: name \"a\" is already used by job[0]"));
}

TEST(JobsConfig, SimTargetNeedsTheSimEngine) {
  EXPECT_THAT(error_of("[[job]]\nname = \"a\"\ntarget = \"sim:SIM0\"\n"),
              HasSubstr("nvmond.toml:3:10: job[0].target: a \"sim:SERIAL\" target needs engine = \"sim\""));
}

TEST(JobsConfig, SimJobMustNameAConfiguredDrive) {
  EXPECT_THAT(error_of("[[job]]\nname = \"a\"\ntarget = \"sim:NOPE\"\nengine = \"sim\"\n"),
              HasSubstr("nvmond.toml:3:10: job[0].target: no [[sim]] drive has serial \"NOPE\""));
}

TEST(JobsConfig, JobAndSafetyErrorsArePositioned) {
  EXPECT_THAT(error_of("[[job]]\nname = \"a\"\ntarget = \"/tmp/f\"\nqueue_depht = 4\n"), HasSubstr("nvmond.toml:4:1:"));
  EXPECT_THAT(error_of("[safety]\nallow_serial = [\"x\"]\n"), HasSubstr("nvmond.toml:2:1:"));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
