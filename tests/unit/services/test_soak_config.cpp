// [[soak]] tables of the daemon's config: a test name and its parameters are
// checked when the file loads, with file:line:col.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "services/config.hpp"
#include "pts/plan.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;

DaemonConfig load(const test::TempDir& dir, const std::string& text) {
  const std::string path = dir.path() + "/nvmond.toml";
  std::ofstream(path) << text;
  return load_config(path);
}

TEST(SoakConfig, ReadsNameTestTargetAndParameters) {
  test::TempDir dir;
  DaemonConfig c = load(dir, R"(
[[sim]]
name = "dc0"
serial = "DC0"
profile = "datacenter"

[[soak]]
name = "dc0-wsat"
test = "wsat"
target = "sim:dc0"
params = { rounds = 600, round = "60s", range = 0.5, purge = true }
)");
  ASSERT_EQ(c.soaks.size(), 1u);
  EXPECT_EQ(c.soaks[0].name, "dc0-wsat");
  EXPECT_EQ(c.soaks[0].test, "wsat");
  EXPECT_EQ(c.soaks[0].target, "sim:dc0");
  EXPECT_EQ(c.soaks[0].request.text().at("rounds"), "600");
  EXPECT_EQ(c.soaks[0].request.text().at("round"), "60s");
  EXPECT_EQ(c.soaks[0].request.text().at("range"), "0.5");
  EXPECT_EQ(c.soaks[0].request.text().at("purge"), "true");
}

// The plan of a [[soak]] as it would run on a drive.
TestPlan plan_of(const DaemonConfig& c, const TargetFacts& drive = TargetFacts{1'000'000'000'000ULL, 1.3}) {
  return build_plan(c.soaks.at(0).request, drive);
}

const char* kSoakHead = "[[sim]]\nname = \"dc0\"\nserial = \"DC0\"\n[[soak]]\nname = \"a\"\ntarget = \"sim:dc0\"\n";

TEST(SoakConfig, TomlValuesKeepTheirTypesWithoutARoundTripThroughText) {
  test::TempDir dir;
  // 2^53 + 1 bytes: as text read through a double it would become 2^53.
  DaemonConfig c = load(
      dir, std::string(kSoakHead) + "test = \"wsat\"\nparams = { bs = 9007199254740993, rounds = 600, range = 0.5 }\n");
  EXPECT_EQ(std::get<std::int64_t>(c.soaks[0].request.values.at("rounds")), 600);
  EXPECT_EQ(std::get<double>(c.soaks[0].request.values.at("range")), 0.5);
  EXPECT_EQ(plan_of(c).parameters.at("bs"), "9007199254740993");
}

TEST(SoakConfig, ParametersAreCheckedAtTheirPositionWithoutADrive) {
  test::TempDir dir;
  const std::string fractional = test::config_error_of(
      [&] { load(dir, std::string(kSoakHead) + "test = \"wsat\"\nparams = { rounds = 1.5 }\n"); });
  EXPECT_THAT(fractional, HasSubstr("nvmond.toml:8:"));
  EXPECT_THAT(fractional, HasSubstr("parameter rounds=1.5: not an integer"));
  EXPECT_THAT(test::config_error_of(
                  [&] { load(dir, std::string(kSoakHead) + "test = \"iops\"\nparams = { max_rounds = 3 }\n"); }),
              HasSubstr("max_rounds must be 0 (fixed length) or at least the window"));
  // The dwpd an endurance soak writes by default is the drive's rating,
  // known only when the run opens on it.
  DaemonConfig c = load(dir, std::string(kSoakHead) + "test = \"endurance\"\n");
  EXPECT_EQ(plan_of(c, TargetFacts{1'000'000'000'000ULL, 3.0}).parameters.at("dwpd"), "3");
  EXPECT_THROW(plan_of(c, TargetFacts{1'000'000'000'000ULL, 5000}), ParamError);
}

TEST(SoakConfig, ReadsTheScheduleKeys) {
  test::TempDir dir;
  DaemonConfig c = load(dir, R"([[sim]]
name = "dc0"
serial = "DC0"

[[soak]]
name = "weekly"
test = "iops"
target = "sim:dc0"
schedule = "Sat *-*-* 02:00"
randomized_delay = "30m"
thermal_margin = 8
on_throttle = "pause"
)");
  ASSERT_EQ(c.soaks.size(), 1U);
  const SoakEntry e = c.soaks[0].entry();
  EXPECT_EQ(e.timing.schedule.kind, Schedule::Kind::calendar);
  EXPECT_EQ(e.timing.randomized_delay, std::chrono::minutes(30));
  EXPECT_EQ(e.timing.thermal_margin_c, 8);
  EXPECT_EQ(e.timing.on_throttle, OnThrottle::pause);
  EXPECT_EQ(e.request.test.test, "iops");
  EXPECT_TRUE(e.request.resumable);
  EXPECT_THAT(test::config_error_of([&] {
                load(dir,
                     "[[sim]]\nname = \"dc0\"\nserial = \"DC0\"\n[[soak]]\nname = \"a\"\ntest = \"wsat\"\n"
                     "target = \"sim:dc0\"\nschedule = \"Caturday 25:00\"\n");
              }),
              HasSubstr("nvmond.toml:8:"));
}

TEST(SoakConfig, AnUnknownTestOrParameterFailsAtItsPosition) {
  test::TempDir dir;
  EXPECT_THAT(
      test::config_error_of([&] { load(dir, "[[soak]]\nname = \"a\"\ntest = \"wsatt\"\ntarget = \"sim:x\"\n"); }),
      HasSubstr("nvmond.toml:3:"));
  const std::string bad_param = test::config_error_of(
      [&] { load(dir, "[[soak]]\nname = \"a\"\ntest = \"wsat\"\ntarget = \"sim:x\"\nparams = { roundz = 3 }\n"); });
  EXPECT_THAT(bad_param, HasSubstr("nvmond.toml:5:"));
  EXPECT_THAT(bad_param, HasSubstr("roundz"));
  EXPECT_THAT(test::config_error_of([&] {
                load(dir,
                     "[[soak]]\nname = \"a\"\ntest = \"wsat\"\ntarget = \"s\"\n"
                     "[[soak]]\nname = \"a\"\ntest = \"iops\"\ntarget = \"s\"\n");
              }),
              HasSubstr("duplicate soak name"));
  EXPECT_THAT(test::config_error_of([&] { load(dir, "[[soak]]\nname = \"a\"\ntest = \"wsat\"\n"); }),
              HasSubstr("required"));
}

// The name becomes STATE_DIR/runs/NAME-RUNID and part of log lines: one that
// climbs out ("../../x"), is absolute, forges a log line or runs to
// megabytes is refused at its position, and the message does not repeat it.
TEST(SoakConfig, ANameThatIsNoSafePathComponentFailsAtItsPosition) {
  test::TempDir dir;
  const std::string big(10 * 1024 * 1024, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\"../../x\"", "may contain only letters, digits, '-', '_' and '.'"},
      {"\"/etc/cron.d/x\"", "may contain only letters, digits, '-', '_' and '.'"},
      {"\"a\\nsoak b: completed\"", "may contain only letters, digits, '-', '_' and '.'"},
      {"\"..\"", "must start with a letter or a digit"},
      {"\"-rf\"", "must start with a letter or a digit"},
      {"\"\"", "must be 1 to 64 characters (got 0)"},
      {"\"" + big + "\"", "must be 1 to 64 characters (got 10485760)"},
  };
  for (const auto& [name, why] : cases) {
    const std::string error = test::config_error_of(
        [&] { load(dir, "[[soak]]\nname = " + name + "\ntest = \"wsat\"\ntarget = \"sim:x\"\n"); });
    EXPECT_THAT(error, HasSubstr("nvmond.toml:2:8: soak[0].name: " + why)) << name.substr(0, 40);
    EXPECT_LT(error.size(), 300u) << "the message repeats the name";
  }
  const DaemonConfig ok = load(dir,
                               "[[sim]]\nname = \"x\"\nserial = \"X\"\n"
                               "[[soak]]\nname = \"dc0.wsat_2-b\"\ntest = \"wsat\"\ntarget = \"sim:x\"\n");
  EXPECT_EQ(ok.soaks.at(0).name, "dc0.wsat_2-b");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
