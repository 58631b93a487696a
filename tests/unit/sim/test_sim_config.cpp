// [[sim]] tables of the daemon config: profiles, overrides, units, and errors
// that point at file:line:col.
#include <gtest/gtest.h>

#include "tests/support/config_error.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "sim/sim_drive_spec.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

// Writes `text` to a temporary .toml file and parses its first [[sim]] table.
class SimConfig : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  SimDriveSpec parse(const std::string& text, bool finish = false) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "nvmond-sim-XXXXXX.toml").string();
    int fd = ::mkstemps(tmpl.data(), 5);
    if (fd < 0) throw std::runtime_error("mkstemps failed");
    ::close(fd);
    path_ = tmpl;
    std::ofstream(path_) << text;
    table_ = parse_toml_file(path_);
    TableReader root(table_, path_, "");
    auto sims = root.array_of_tables("sim");
    if (sims.empty()) throw std::runtime_error("no [[sim]] table");
    SimDriveSpec spec = parse_sim_drive(sims[0]);
    if (finish) sims[0].finish();
    return spec;
  }
  // parse() of a [[sim]] table with the name and serial every drive needs,
  // then `keys`.
  SimDriveSpec parse_keys(const std::string& keys) { return parse("[[sim]]\nname = \"g\"\nserial = \"SG\"\n" + keys); }
  // The ConfigError message of parsing `text`, or "" if it parsed.
  std::string error_of(const std::string& text) {
    return test::config_error_of([&] { parse(text); });
  }
  std::string path_;
  toml::table table_;
};

TEST_F(SimConfig, EveryKeyIsReadInBaseUnits) {
  SimDriveSpec s = parse(R"(
[[sim]]
name = "bay1"
serial = "S1"
model = "ACME 1"
firmware = "1.2"
profile = "consumer"
capacity = "2TB"
rated_dwpd = 0.6
warranty_years = 3
sensors = 4
warning_temp_c = 80
critical_temp_c = 90
ambient_c = 28.5
thermal_resistance_c_per_w = 12
thermal_time_constant = "2m"
idle_power_w = 1.5
power_per_gbps_w = 4
throttle = [{ at_c = 70, write_mbps = 800 }, { at_c = 75, write_mbps = 650 }]
hysteresis_c = 1.5
max_write_mbps = 2500
max_read_mbps = 3500
slc_cache = "40GB"
post_cache_write_mbps = 900
random_read_iops = 400000
random_write_iops = 300000
steady_random_write_iops = 50000
steady_write_amplification = 3.5
read_latency = "90us"
write_latency = "25us"
write_dwpd = 2
read_rate = "10MB/s"
has_ocp = true
fault = "hang"
hang = "30s"
media_error_interval = "10m"
degraded_link = true
self_test_failure = true
)",
                         /*finish=*/true);  // every key above was consumed
  EXPECT_EQ(s.name, "bay1");
  EXPECT_EQ(s.media_error_interval, std::chrono::minutes(10));
  EXPECT_TRUE(s.degraded_link);
  EXPECT_TRUE(s.self_test_failure);
  EXPECT_EQ(s.serial, "S1");
  EXPECT_EQ(s.model, "ACME 1");
  EXPECT_EQ(s.firmware, "1.2");
  EXPECT_EQ(s.profile, "consumer");
  EXPECT_EQ(s.capacity_bytes, 2'000'000'000'000ULL);
  EXPECT_DOUBLE_EQ(rated_endurance_bytes(s), 0.6 * 2e12 * 365 * 3);
  EXPECT_EQ(s.sensors, 4);
  EXPECT_DOUBLE_EQ(s.warning_temp_c, 80);
  EXPECT_DOUBLE_EQ(s.critical_temp_c, 90);
  EXPECT_DOUBLE_EQ(s.ambient_c, 28.5);
  EXPECT_DOUBLE_EQ(s.thermal_resistance_c_per_w, 12);
  EXPECT_EQ(s.thermal_time_constant, 120s);
  EXPECT_DOUBLE_EQ(s.idle_power_w, 1.5);
  EXPECT_DOUBLE_EQ(s.power_per_gbps_w, 4);
  ASSERT_EQ(s.throttle.size(), 2u);
  EXPECT_DOUBLE_EQ(s.throttle[1].at_c, 75);
  EXPECT_DOUBLE_EQ(s.throttle[1].write_bytes_per_s, 650e6);
  EXPECT_DOUBLE_EQ(s.hysteresis_c, 1.5);
  EXPECT_DOUBLE_EQ(s.max_write_bytes_per_s, 2500e6);
  EXPECT_DOUBLE_EQ(s.max_read_bytes_per_s, 3500e6);
  EXPECT_EQ(s.slc_cache_bytes, 40'000'000'000ULL);
  EXPECT_DOUBLE_EQ(s.post_cache_write_bytes_per_s, 900e6);
  EXPECT_DOUBLE_EQ(s.random_read_iops, 400000);
  EXPECT_DOUBLE_EQ(s.random_write_iops, 300000);
  EXPECT_DOUBLE_EQ(s.steady_random_write_iops, 50000);
  EXPECT_DOUBLE_EQ(s.steady_write_amplification, 3.5);
  // core's from_seconds truncates to whole nanoseconds: allow 1 ns.
  EXPECT_NEAR(static_cast<double>(s.read_latency.count()), 90'000, 1);
  EXPECT_NEAR(static_cast<double>(s.write_latency.count()), 25'000, 1);
  EXPECT_DOUBLE_EQ(s.background_write_bytes_per_s, 2 * 2e12 / 86400);
  EXPECT_DOUBLE_EQ(s.background_read_bytes_per_s, 10e6);
  EXPECT_TRUE(s.has_ocp);
  EXPECT_EQ(s.fault, SimFault::hang);
  EXPECT_EQ(s.hang, 30s);
}

TEST_F(SimConfig, ProfileSuppliesDefaultsAndLeavesDaemonKeysAlone) {
  SimDriveSpec s = parse_keys(R"(
profile = "datacenter"
poll_interval = "10s"
)");
  EXPECT_EQ(s.capacity_bytes, 3'840'000'000'000ULL);
  ASSERT_EQ(s.throttle.size(), 2u);
  EXPECT_DOUBLE_EQ(s.throttle[0].write_bytes_per_s, 800e6);
  EXPECT_TRUE(s.has_ocp);
  EXPECT_EQ(s.fault, SimFault::none);
  EXPECT_DOUBLE_EQ(s.background_write_bytes_per_s, 0);
}

TEST_F(SimConfig, AStuckTemperatureSensorIsAFault) {
  EXPECT_EQ(parse_keys("fault = \"stuck_temperature\"\n").fault, SimFault::stuck_temperature);
}

TEST_F(SimConfig, DefaultProfileIsGenericAndRatesAcceptSeveralForms) {
  SimDriveSpec s = parse_keys(R"(
write_rate = "50MB/s"
read_rate = 1000
throttle = []
)");
  EXPECT_EQ(s.profile, "generic");
  EXPECT_DOUBLE_EQ(s.background_write_bytes_per_s, 50e6);
  EXPECT_DOUBLE_EQ(s.background_read_bytes_per_s, 1000);
  EXPECT_TRUE(s.throttle.empty());
}

TEST_F(SimConfig, RatedTbwOverridesTheProfileDwpd) {
  SimDriveSpec s = parse_keys(R"(
profile = "datacenter"
rated_tbw = "600TB"
)");
  EXPECT_DOUBLE_EQ(rated_endurance_bytes(s), 600e12);
  SimDriveSpec t = parse_keys(R"(
rated_tbw = 150
)");
  EXPECT_DOUBLE_EQ(rated_endurance_bytes(t), 150e12);
}

TEST_F(SimConfig, RatedTbwWithWarrantyYearsGivesTheDwpdOverThatPeriod) {
  SimDriveSpec s = parse_keys(R"(
rated_tbw = 600
warranty_years = 3
)");
  EXPECT_DOUBLE_EQ(rated_endurance_bytes(s), 600e12);
  EXPECT_DOUBLE_EQ(s.endurance.warranty_years, 3);
  EXPECT_DOUBLE_EQ(s.endurance.rated_dwpd, 600e12 / (1e12 * 365 * 3));
}

struct BadCase {
  const char* what;
  const char* body;     // lines after [[sim]] (line 2 onward)
  const char* where;    // expected "LINE:COL"
  const char* message;  // expected substring
};

class SimConfigErrors : public SimConfig, public ::testing::WithParamInterface<BadCase> {};

TEST_P(SimConfigErrors, PointAtTheOffendingValue) {
  const BadCase& c = GetParam();
  std::string err = error_of(std::string("[[sim]]\n") + c.body);
  ASSERT_NE(err, "(no error)") << c.what << ": parsed without error";
  EXPECT_EQ(err.rfind(path_ + ":" + c.where + ": ", 0), 0u) << err;
  EXPECT_NE(err.find(c.message), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SimConfigErrors,
    ::testing::Values(
        BadCase{"unknown profile", "name = \"a\"\nserial = \"S\"\nprofile = \"fancy\"\n", "4:11",
                "\"fancy\" is not one of"},
        BadCase{"missing serial", "name = \"a\"\n", "1:1", "missing serial"},
        BadCase{"bad serial", "name = \"a\"\nserial = \"a/b\"\n", "3:10", "sim[0].serial"},
        BadCase{"too many sensors", "name = \"a\"\nserial = \"S\"\nsensors = 9\n", "4:11", "between 1 and 8"},
        BadCase{"bad size", "name = \"a\"\nserial = \"S\"\ncapacity = \"lots\"\n", "4:12", "expected a size"},
        BadCase{"bad duration", "name = \"a\"\nserial = \"S\"\nthermal_time_constant = \"soon\"\n", "4:25",
                "expected a duration"},
        BadCase{"zero bandwidth", "name = \"a\"\nserial = \"S\"\nmax_write_mbps = 0\n", "4:18", "between"},
        BadCase{"critical below warning", "name = \"a\"\nserial = \"S\"\ncritical_temp_c = 60\n", "4:19",
                "above warning_temp_c"},
        BadCase{"throttle order",
                "name = \"a\"\nserial = \"S\"\n"
                "throttle = [{ at_c = 75, write_mbps = 650 }, { at_c = 70, write_mbps = 600 }]\n",
                "4:55", "ascending"},
        BadCase{"throttle speeds up",
                "name = \"a\"\nserial = \"S\"\n"
                "throttle = [{ at_c = 70, write_mbps = 650 }, { at_c = 75, write_mbps = 800 }]\n",
                "4:72", "allow less"},
        BadCase{"throttle typo", "name = \"a\"\nserial = \"S\"\nthrottle = [{ at = 70, write_mbps = 650 }]\n", "4:15",
                "unknown key \"sim[0].throttle[0].at\""},
        BadCase{"rate and dwpd", "name = \"a\"\nserial = \"S\"\nwrite_rate = 100\nwrite_dwpd = 1\n", "5:14",
                "either write_rate or write_dwpd"},
        BadCase{"bad rate", "name = \"a\"\nserial = \"S\"\nread_rate = \"fast\"\n", "4:13", "bytes per second"},
        BadCase{"tbw and dwpd", "name = \"a\"\nserial = \"S\"\nrated_dwpd = 1\nrated_tbw = 600\n", "5:13",
                "either rated_tbw"},
        BadCase{"bad fault", "name = \"a\"\nserial = \"S\"\nfault = \"explode\"\n", "4:9", "\"explode\""},
        BadCase{"ocp not bool", "name = \"a\"\nserial = \"S\"\nhas_ocp = 1\n", "4:11", "true or false"},
        BadCase{"tmt counters not bool", "name = \"a\"\nserial = \"S\"\ntmt_counters = \"no\"\n", "4:16",
                "true or false"}),
    [](const ::testing::TestParamInfo<BadCase>& param_info) {
      std::string n = param_info.param.what;
      for (char& ch : n) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return n;
    });

TEST(SimProfiles, EveryProfileIsSelfConsistent) {
  for (const auto& name : sim_profile_names()) {
    SimDriveSpec s = sim_profile(name);
    EXPECT_EQ(s.profile, name);
    EXPECT_GT(s.capacity_bytes, 0u) << name;
    EXPECT_GT(rated_endurance_bytes(s), 0) << name;
    EXPECT_LT(s.warning_temp_c, s.critical_temp_c) << name;
    for (std::size_t i = 1; i < s.throttle.size(); ++i) {
      EXPECT_LT(s.throttle[i - 1].at_c, s.throttle[i].at_c) << name;
    }
  }
  EXPECT_THROW(sim_profile("nope"), std::out_of_range);
}

// The profiles are TOML read by the [[sim]] reader: pin the figures the
// reviews they model quote, so a slip in that table cannot pass unseen.
TEST(SimProfiles, CarryTheReviewedDrivesFigures) {
  const SimDriveSpec dc = sim_profile("datacenter");
  EXPECT_EQ(dc.capacity_bytes, 3'840'000'000'000ULL);
  EXPECT_DOUBLE_EQ(dc.endurance.rated_dwpd, 1.3);
  ASSERT_EQ(dc.throttle.size(), 2u);
  EXPECT_DOUBLE_EQ(dc.throttle[0].at_c, 70);
  EXPECT_DOUBLE_EQ(dc.throttle[1].write_bytes_per_s, 650e6);
  EXPECT_TRUE(dc.has_ocp);
  const SimDriveSpec c = sim_profile("consumer");
  EXPECT_DOUBLE_EQ(rated_endurance_bytes(c), 480e12);
  EXPECT_EQ(c.slc_cache_bytes, 28'000'000'000ULL);
  EXPECT_DOUBLE_EQ(c.post_cache_write_bytes_per_s, 630e6);
  const SimDriveSpec h = sim_profile("consumer-heatsink");
  EXPECT_EQ(h.model, c.model);  // the same drive, cooled better
  EXPECT_DOUBLE_EQ(h.thermal_resistance_c_per_w, 9);
  EXPECT_EQ(h.thermal_time_constant, std::chrono::seconds(120));
  EXPECT_FALSE(sim_profile("generic").has_ocp);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
