#include "workloads/job_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/support/config_error.hpp"
#include "tests/support/fixture_path.hpp"
#include "tests/support/temp_dir.hpp"

#include "workloads/run_job_cli.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

JobSpec parse_one(const std::string& body) {
  const std::string doc = "[[job]]\n" + body;
  toml::table t = toml::parse(std::string_view(doc), std::string_view("job.toml"));
  TableReader root(t, "job.toml", "");
  auto jobs = root.array_of_tables("job");
  return parse_job(jobs.at(0));
}

std::string error_of(const std::string& body) {
  return test::config_error_of([&] { parse_one(body); });
}

TEST(JobSpec, FixtureFileParsesEveryKey) {
  JobsConfig f = load_job_file(test::fixture_path("workloads/jobs.toml"));
  ASSERT_EQ(f.jobs.size(), 2u);
  EXPECT_EQ(f.safety.allow_serials, std::vector<std::string>{"S4EWNX0R123456"});
  EXPECT_EQ(f.safety.allow_dirs, std::vector<std::string>{"/var/lib/nvmond/scratch"});
  const JobSpec& w = f.jobs[0];
  EXPECT_EQ(w.block_sizes.size(), 1u);
  EXPECT_EQ(w.block_sizes[0].bytes, 4096u);
  EXPECT_EQ(w.read_pct, 0.0);
  EXPECT_EQ(w.threads, 4u);
  EXPECT_EQ(w.queue_depth, 32u);
  EXPECT_EQ(w.runtime, std::chrono::hours(10));
  EXPECT_EQ(w.rate_bytes_per_second, 200e6);
  EXPECT_TRUE(w.direct);
  EXPECT_EQ(w.pattern, AccessPattern::random);
  const JobSpec& c = f.jobs[1];
  ASSERT_EQ(c.block_sizes.size(), 3u);
  EXPECT_EQ(c.block_sizes[1].bytes, 65536u);
  EXPECT_EQ(c.block_sizes[2].weight, 10u);
  EXPECT_EQ(c.offset, 1u << 20);
  EXPECT_EQ(c.size, 512u << 20);
  EXPECT_EQ(c.bytes, 2ULL << 30);
  EXPECT_EQ(c.rate_iops, 5000.0);
  EXPECT_EQ(c.data, DataPattern::zeros);
  EXPECT_EQ(c.file_size, 1ULL << 30);
  EXPECT_FALSE(c.direct);
  EXPECT_EQ(c.max_block_size(), 1u << 20);
}

// nvmonctl run-job reads its file with the daemon's reader: a second job of
// the same name is refused, positioned, before any job runs.
TEST(JobSpec, TheCliRefusesADuplicateJobName) {
  test::TempDir dir;
  const std::string path = dir.path() + "/jobs.toml";
  std::ofstream(path) << "[[job]]\nname = \"a\"\ntarget = \"" << dir.path() << "/f\"\n"
                      << "[[job]]\nname = \"a\"\ntarget = \"" << dir.path() << "/g\"\n";
  EXPECT_THAT(test::config_error_of([&] { load_job_file(path); }),
              ::testing::HasSubstr(path + ":5:8: job[1].name: duplicate job: name \"a\" is already used by job[0]"));
  std::ostringstream out, err;
  EXPECT_EQ(run_job_cli(path, out, err, EngineFactory{}), 2);
  EXPECT_EQ(out.str(), "");
  EXPECT_THAT(err.str(), ::testing::HasSubstr(path + ":5:8:"));
}

TEST(JobSpec, ErrorsCarryFileLineAndColumn) {
  EXPECT_EQ(error_of("name = \"a\"\ntarget = \"/x\"\nqueue_depth = 0\n"),
            "job.toml:4:15: job[0].queue_depth: 0 is out of range: must be between 1 and 4096");
  EXPECT_EQ(error_of("name = \"a\"\ntarget = \"/x\"\nbs = \"4KB\"\n"),
            "job.toml:4:6: job[0].bs: must be a multiple of 512 bytes with direct = true");
  EXPECT_EQ(error_of("name = \"a\"\ntarget = \"/x\"\niodepth = 4\n"), "job.toml:4:1: unknown key \"job[0].iodepth\"");
}

TEST(JobSpec, RejectsInconsistentCombinations) {
  EXPECT_NE(
      error_of("name=\"a\"\ntarget=\"/x\"\nbs=\"4KiB\"\nbs_mix=[{bs=\"8KiB\",weight=1}]\n").find("either bs or bs_mix"),
      std::string::npos);
  EXPECT_NE(error_of("name=\"a\"\ntarget=\"/x\"\nverify=true\n").find("set read_pct = 0"), std::string::npos);
  EXPECT_NE(error_of("name=\"a\"\ntarget=\"/"
                     "x\"\nread_pct=0\nverify=true\nbs_mix=[{bs=\"8KiB\",weight=1},{bs=\"4KiB\",weight=1}]\n")
                .find("single block size"),
            std::string::npos);
  EXPECT_NE(error_of("name=\"a\"\ntarget=\"/x\"\npattern=\"zigzag\"\n").find("is not one of"), std::string::npos);
  EXPECT_NE(error_of("name=\"a\"\ntarget=\"/x\"\nbs_mix=[{bs=\"8KiB\"}]\n").find("weight"), std::string::npos);
  EXPECT_NE(error_of("name=\"a\"\ntarget=\"/x\"\nbs_mix=[{bs=\"8KiB\",weight=1,colour=2}]\n")
                .find("unknown key \"job[0].bs_mix[0].colour\""),
            std::string::npos);
  EXPECT_NE(error_of("target=\"/x\"\n").find("\"name\" is required"), std::string::npos);
  EXPECT_NE(error_of("name=\"a\"\ntarget=\"/x\"\nengine=\"sim\"\n").find("sim:SERIAL"), std::string::npos);
  EXPECT_NE(error_of("name=\"a\"\ntarget=\"/x\"\nsize=\"1KiB\"\nbs=\"4KiB\"\n").find("smaller than"),
            std::string::npos);
}

TEST(JobSpec, DefaultsAreOnePassOfRandomReads) {
  JobSpec j = parse_one("name = \"a\"\ntarget = \"/x\"\n");
  EXPECT_EQ(j.read_pct, 100.0);
  EXPECT_EQ(j.queue_depth, 1u);
  EXPECT_FALSE(j.runtime);
  EXPECT_FALSE(j.bytes);
  EXPECT_FALSE(j.writes());
  EXPECT_EQ(j.engine, "io_uring");
}

// The spin before sleeping is on by default, can be turned off with 0 and
// stays short: beyond a millisecond sleeping is the cheaper wait.
TEST(JobSpec, CompletionSpinDefaultsOnAndIsBounded) {
  EXPECT_EQ(parse_one("name = \"a\"\ntarget = \"/x\"\n").completion_spin, std::chrono::microseconds(50));
  EXPECT_EQ(parse_one("name = \"a\"\ntarget = \"/x\"\ncompletion_spin = \"0\"\n").completion_spin, Duration(0));
  EXPECT_EQ(parse_one("name = \"a\"\ntarget = \"/x\"\ncompletion_spin = \"200us\"\n").completion_spin,
            std::chrono::microseconds(200));
  EXPECT_THAT(error_of("name = \"a\"\ntarget = \"/x\"\ncompletion_spin = \"2ms\"\n"),
              ::testing::StartsWith("job.toml:4:19: job[0].completion_spin: "));
}

TEST(SafetyConfig, RejectsRelativeAndRootDirectories) {
  toml::table t = toml::parse(std::string_view("[safety]\nallow_dirs = [\"/\"]\n"), std::string_view("s.toml"));
  TableReader root(t, "s.toml", "");
  auto s = root.table("safety");
  EXPECT_THROW(parse_safety(*s), ConfigError);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
