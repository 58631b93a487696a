// Values the daemon's configuration must refuse, one row each, with the exact
// `file:line:col: message` the operator reads. Every row here was accepted
// once and did harm: nan/inf/huge numbers, listen addresses that
// bound somewhere else, intervals that spin a core, 10,000 simulated drives,
// a directory or an empty file as the configuration.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "services/config.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

// Where the row's configuration is: a file with `text`, a directory, nothing.
enum class Layout { file, directory, missing };

struct Row {
  std::string name;
  std::string text;
  std::string expected;  // after "PATH:"
  Layout layout = Layout::file;
};

const std::string kSim = "[[sim]]\nname = \"a\"\nserial = \"A\"\n";  // 3 lines

std::string sims(std::size_t n) {
  std::string text;
  for (std::size_t i = 0; i < n; ++i)
    text += "[[sim]]\nname = \"s" + std::to_string(i) + "\"\nserial = \"S" + std::to_string(i) + "\"\n";
  return text;
}

std::string job(const std::string& extra) {
  return kSim + "[[job]]\nname = \"j\"\ntarget = \"sim:A\"\nengine = \"sim\"\n" + extra;  // extra on line 8
}

std::string accelerated(const std::string& factor) {
  return "[clock]\nmode = \"accelerated\"\nfactor = " + factor + "\n" + kSim;
}

std::vector<Row> rejected() {
  return {
      // The clock factor: spun a core and dated samples 1734.
      {"factor_nan", accelerated("nan"), "3:10: clock.factor: must be a finite number, not nan"},
      {"factor_inf", accelerated("inf"), "3:10: clock.factor: must be a finite number, not inf"},
      {"factor_1e308", accelerated("1e308"),
       "3:10: clock.factor: 1e+308 is out of range: must be between 1 and 10000000"},
      {"factor_polls_faster_than_1ms", accelerated("1e6"),
       "3:10: clock.factor: 1000000 makes a 10s poll_interval poll every 0.01 ms of real time; keep "
       "poll_interval / factor at least 1ms"},
      {"start_before_1970", "[clock]\nmode = \"accelerated\"\nstart = 1600-01-01T00:00:00Z\n" + kSim,
       "3:9: clock.start: must be between 1970-01-01 and 2200-01-01"},
      // Temperatures: ambient_c = nan exported -273 °C.
      {"ambient_nan", kSim + "ambient_c = nan\n", "4:13: sim[0].ambient_c: must be a finite number, not nan"},
      {"warning_temp_inf", kSim + "warning_temp_c = inf\n",
       "4:18: sim[0].warning_temp_c: must be a finite number, not inf"},
      {"critical_temp_1e308", kSim + "critical_temp_c = 1e308\n",
       "4:19: sim[0].critical_temp_c: 1e+308 °C is out of range: must be between -40 and 200 °C"},
      {"throttle_at_nan", kSim + "throttle = [{ at_c = nan, write_mbps = 500 }]\n",
       "4:22: sim[0].throttle[0].at_c: must be a finite number, not nan"},
      {"threshold_nan", kSim + "[thermal]\nthreshold_c = nan\n",
       "5:15: thermal.threshold_c: must be a finite number, not nan"},
      {"threshold_minus_inf", kSim + "[thermal]\nthreshold_c = -inf\n",
       "5:15: thermal.threshold_c: must be a finite number, not -inf"},
      // Ratings.
      {"sim_rated_dwpd_nan", kSim + "rated_dwpd = nan\n", "4:14: sim[0].rated_dwpd: must be a finite number, not nan"},
      {"sim_warranty_inf", kSim + "warranty_years = inf\n",
       "4:18: sim[0].warranty_years: must be a finite number, not inf"},
      {"sim_rated_tbw_1e308", kSim + "rated_tbw = 1e308\n",
       "4:13: sim[0].rated_tbw: 1e+308 TB is out of range: must be between 0.001 and 1000000 TB"},
      {"sim_rated_tbw_string_1e300", kSim + "rated_tbw = \"1e300TB\"\n",
       "4:13: sim[0].rated_tbw: 1e300TB is out of range: must be between 1GB and 1EB"},
      {"drive_rated_dwpd_nan", kSim + "[[drive]]\nserial = \"R\"\nrated_dwpd = nan\n",
       "6:14: drive[0].rated_dwpd: must be a finite number, not nan"},
      {"drive_rated_tbw_number_1e308", kSim + "[[drive]]\nserial = \"R\"\nrated_tbw = 1e308\n",
       "6:13: drive[0].rated_tbw: 1e+308 TB is out of range: must be between 0.001 and 1000000 TB"},
      {"drive_rated_tbw_1e300", kSim + "[[drive]]\nserial = \"R\"\nrated_tbw = \"1e300TB\"\n",
       "6:13: drive[0].rated_tbw: 1e300TB is out of range: must be between 1GB and 1EB"},
      {"warn_factor_nan", kSim + "[wear]\nwarn_factor = nan\n",
       "5:15: wear.warn_factor: must be a finite number, not nan"},
      // Rates: write_rate = "1e300MB" exported 65,262 °C.
      {"write_rate_1e300MB", kSim + "write_rate = \"1e300MB\"\n",
       "4:14: sim[0].write_rate: 1e300MB is out of range: must be between 0 and 1TB/s"},
      {"write_rate_nan", kSim + "write_rate = nan\n", "4:14: sim[0].write_rate: must be a finite rate, not nan"},
      {"read_rate_inf", kSim + "read_rate = inf\n", "4:13: sim[0].read_rate: must be a finite rate, not inf"},
      {"write_rate_above_the_drive", kSim + "write_rate = \"3000MB/s\"\n",
       "4:14: sim[0].write_rate: 3000 MB/s is more than the drive writes (max_write_mbps = 1000)"},
      {"write_dwpd_nan", kSim + "write_dwpd = nan\n", "4:14: sim[0].write_dwpd: must be a finite number, not nan"},
      {"max_write_mbps_1e308", kSim + "max_write_mbps = 1e308\n",
       "4:18: sim[0].max_write_mbps: 1e+308 MB/s is out of range: must be between 0.001 and 1000000 MB/s"},
      {"job_rate_iops_nan", job("rate_iops = nan\n"), "8:13: job[0].rate_iops: must be a finite number, not nan"},
      {"job_rate_bytes_1e300", job("rate_bytes = \"1e300MB\"\n"),
       "8:14: job[0].rate_bytes: 1e300MB is out of range: must be between 0 and 1TB/s"},
      {"job_bytes_1e300", job("bytes = \"1e300MB\"\n"),
       "8:9: job[0].bytes: 1e300MB is out of range: must be between 1 and 1EiB"},
      {"job_runtime_1e300s", job("runtime = \"1e300s\"\n"),
       "8:11: job[0].runtime: 1e300s is out of range: must be between 1ms and 365d"},
      // listen: 999.1.1.1 bound 231.1.1.1; the rest bound something or nothing.
      {"listen_octet_999", "[daemon]\nlisten = \"999.1.1.1:9972\"\n" + kSim,
       "2:10: daemon.listen: \"999.1.1.1:9972\": \"999.1.1.1\" is not an IPv4 address (four numbers 0..255)"},
      {"listen_port_99999", "[daemon]\nlisten = \"127.0.0.1:99999\"\n" + kSim,
       "2:10: daemon.listen: \"127.0.0.1:99999\": port 99999 is not between 1 and 65535"},
      {"listen_port_0", "[daemon]\nlisten = \"127.0.0.1:0\"\n" + kSim,
       "2:10: daemon.listen: \"127.0.0.1:0\": port 0 is not between 1 and 65535"},
      {"listen_colon_abc", "[daemon]\nlisten = \":abc\"\n" + kSim,
       "2:10: daemon.listen: \":abc\": the host is empty (use 0.0.0.0 or [::] for every interface)"},
      {"listen_colon", "[daemon]\nlisten = \":\"\n" + kSim,
       "2:10: daemon.listen: \":\": the host is empty (use 0.0.0.0 or [::] for every interface)"},
      {"listen_port_letters", "[daemon]\nlisten = \"localhost:abc\"\n" + kSim,
       "2:10: daemon.listen: \"localhost:abc\": port \"abc\" is not a number between 1 and 65535"},
      {"listen_empty_port", "[daemon]\nlisten = \"localhost:\"\n" + kSim,
       "2:10: daemon.listen: \"localhost:\": the port is empty"},
      {"listen_no_port", "[daemon]\nlisten = \"127.0.0.1\"\n" + kSim,
       "2:10: daemon.listen: \"127.0.0.1\": expected HOST:PORT, e.g. 127.0.0.1:9947"},
      {"listen_ipv6_unbracketed", "[daemon]\nlisten = \"::1:9947\"\n" + kSim,
       "2:10: daemon.listen: \"::1:9947\": an IPv6 address needs brackets, e.g. [::1]:9947"},
      {"listen_ipv6_no_port", "[daemon]\nlisten = \"[::1]\"\n" + kSim,
       "2:10: daemon.listen: \"[::1]\": expected HOST:PORT, e.g. [::1]:9947"},
      {"listen_ipv6_garbage", "[daemon]\nlisten = \"[::g]:9947\"\n" + kSim,
       "2:10: daemon.listen: \"[::g]:9947\": \"::g\" is not an IPv6 address"},
      {"listen_bad_hostname", "[daemon]\nlisten = \"-bad-:9947\"\n" + kSim,
       "2:10: daemon.listen: \"-bad-:9947\": \"-bad-\" is not a host name (letters, digits, '-' and '.')"},
      {"state_dir_empty", "[daemon]\nstate_dir = \"\"\n" + kSim, "2:13: daemon.state_dir: must not be empty"},
      // The control socket: a relative path would depend on the daemon's cwd;
      // sun_path holds 107 bytes and a NUL.
      {"control_socket_relative", "[control]\nsocket = \"ctl.sock\"\n" + kSim,
       "2:10: control.socket: expected an absolute path"},
      {"control_socket_108_bytes", "[control]\nsocket = \"/" + std::string(107, 'a') + "\"\n" + kSim,
       "2:10: control.socket: longer than a Unix socket path may be (107 bytes)"},
      // Each passed the check, then the daemon refused to start on it.
      {"control_group_unknown", "[control]\ngroup = \"nvmond-no-such-group\"\n" + kSim,
       "2:9: control.group: unknown group \"nvmond-no-such-group\""},
      {"control_socket_is_a_regular_file", "[control]\nsocket = \"@DIR@/nvmond.toml\"\n" + kSim,
       "2:10: control.socket: \"@DIR@/nvmond.toml\" exists and is not a socket"},
      {"control_socket_directory_missing", "[control]\nsocket = \"@DIR@/absent/control.sock\"\n" + kSim,
       "2:10: control.socket: directory \"@DIR@/absent\" does not exist"},
      // Intervals: 1us spun 138 % CPU and logged 4,205 lines in 3 s.
      {"poll_interval_1us", "[collection]\npoll_interval = \"1us\"\n" + kSim,
       "2:17: collection.poll_interval: 1us is out of range: must be between 100ms and 1d"},
      {"poll_interval_1e300s", "[collection]\npoll_interval = \"1e300s\"\n" + kSim,
       "2:17: collection.poll_interval: 1e300s is out of range: must be between 100ms and 1d"},
      {"poll_interval_nan", "[collection]\npoll_interval = nan\n" + kSim,
       "2:17: collection.poll_interval: must be a finite duration, not nan"},
      {"poll_interval_negative", "[collection]\npoll_interval = -5\n" + kSim,
       "2:17: collection.poll_interval: -5s is out of range: must be between 100ms and 1d"},
      {"command_timeout_10ms", "[collection]\ncommand_timeout = \"10ms\"\n" + kSim,
       "2:19: collection.command_timeout: 10ms is out of range: must be between 100ms and 1h"},
      {"rescan_interval_500ms", "[collection]\nrescan_interval = \"500ms\"\n" + kSim,
       "2:19: collection.rescan_interval: 500ms is out of range: must be between 1s and 1d"},
      {"sim_poll_interval_1us", kSim + "poll_interval = \"1us\"\n",
       "4:17: sim[0].poll_interval: 1us is out of range: must be between 100ms and 1d"},
      {"nvme_poll_interval_50ms", "[nvme]\ndevices = \"all\"\npoll_interval = \"50ms\"\n",
       "3:17: nvme.poll_interval: 50ms is out of range: must be between 100ms and 1d"},
      {"duration_nan_string", "[collection]\npoll_interval = \"nan\"\n" + kSim,
       "2:17: collection.poll_interval: expected a duration such as 10, \"500ms\", \"10s\", \"5m\", \"1h\""},
      {"raw_retention_1e300d", kSim + "[store]\nraw_retention = \"1e300d\"\n",
       "5:17: store.raw_retention: 1e300d is out of range: must be between 1h and 36500d"},
      {"max_gap_zero", kSim + "[thermal]\nmax_gap = 0\n",
       "5:11: thermal.max_gap: 0s is out of range: must be between 1s and 365d"},
      // Throttling inferred from throughput: a share of 1 or more never fires.
      {"performance_drop_share_1", kSim + "[thermal.performance]\ndrop_share = 1\n",
       "5:14: thermal.performance.drop_share: 1 is out of range: must be between 0.01 and 0.99"},
      {"performance_margin_nan", kSim + "[thermal.performance]\nmargin_c = nan\n",
       "5:12: thermal.performance.margin_c: must be a finite number, not nan"},
      {"performance_baseline_0", kSim + "[thermal.performance]\nbaseline_intervals = 0\n",
       "5:22: thermal.performance.baseline_intervals: 0 is out of range: must be between 1 and 10000"},
      {"performance_typo", kSim + "[thermal.performance]\ndrop = 0.3\n",
       "5:1: unknown key \"thermal.performance.drop\""},
      // Sizes and counts of a simulated drive.
      {"capacity_1e300TB", kSim + "capacity = \"1e300TB\"\n",
       "4:12: sim[0].capacity: 1e300TB is out of range: must be between 512kB and 1PB"},
      {"capacity_negative", kSim + "capacity = -1\n",
       "4:12: sim[0].capacity: -1 is out of range: must be between 512kB and 1PB"},
      {"slc_cache_2PB", kSim + "slc_cache = \"2PB\"\n",
       "4:13: sim[0].slc_cache: 2PB is out of range: must be between 0 and 1PB"},
      {"sensors_9", kSim + "sensors = 9\n", "4:11: sim[0].sensors: 9 is out of range: must be between 1 and 8"},
      {"thermal_time_constant_0", kSim + "thermal_time_constant = \"0s\"\n",
       "4:25: sim[0].thermal_time_constant: 0s is out of range: must be between 1s and 1d"},
      {"hang_nan", kSim + "hang = nan\n", "4:8: sim[0].hang: must be a finite duration, not nan"},
      // 10,000 simulated drives: 10,004 threads and 1.4 GB.
      {"sims_257", sims(kMaxSimDrives + 1), "769:1: sim[256]: at most 256 simulated drives"},
      // [[selftest]]: a test nobody asked for, or one on no drive, must not start.
      {"selftest_without_schedule", kSim + "[[selftest]]\nname = \"t\"\ndrives = [\"A\"]\n",
       "4:1: selftest[0]: name, drives and schedule are required"},
      {"selftest_no_drives", kSim + "[[selftest]]\nname = \"t\"\ndrives = []\nschedule = \"once\"\n",
       "6:10: selftest[0].drives: expected one or more drive serials"},
      {"selftest_drive_twice", kSim + "[[selftest]]\nname = \"t\"\ndrives = [\"A\", \"A\"]\nschedule = \"once\"\n",
       "6:10: selftest[0].drives: serial \"A\" is listed twice"},
      {"selftest_kind", kSim + "[[selftest]]\nname = \"t\"\ndrives = [\"A\"]\nschedule = \"once\"\nkind = \"long\"\n",
       "8:8: selftest[0].kind: \"long\" is not one of \"short\", \"extended\""},
      {"selftest_schedule", kSim + "[[selftest]]\nname = \"t\"\ndrives = [\"A\"]\nschedule = \"every 1x\"\n",
       "7:12: selftest[0].schedule: schedule \"every 1x\": expected \"every DURATION\" of at least 1s"},
      {"selftest_duplicate_name",
       kSim + "[[selftest]]\nname = \"t\"\ndrives = [\"A\"]\nschedule = \"once\"\n"
              "[[selftest]]\nname = \"t\"\ndrives = [\"A\"]\nschedule = \"once\"\n",
       "9:8: selftest[1].name: duplicate selftest name \"t\""},
      {"selftest_unknown_key",
       kSim + "[[selftest]]\nname = \"t\"\ndrives = [\"A\"]\nschedule = \"once\"\ntarget = \"sim:a\"\n",
       "8:1: unknown key \"selftest[0].target\""},
      {"max_concurrent_selftests_0", "[daemon]\nmax_concurrent_selftests = 0\n" + kSim,
       "2:28: daemon.max_concurrent_selftests: 0 is out of range: must be between 1 and 1024"},
      // [telemetry]: area 4 needs a host behaviour nvmond never sets; a cap
      // below 1 MiB keeps little more than headers.
      {"telemetry_data_area_4", "[telemetry]\ndata_area = 4\n" + kSim,
       "2:13: telemetry.data_area: 4 is out of range: must be between 1 and 3"},
      {"telemetry_tiny_cap", "[telemetry]\nmax_bytes_per_drive = \"64KiB\"\n" + kSim,
       "2:23: telemetry.max_bytes_per_drive: 64KiB is out of range: must be between 1MiB and 1TiB"},
      {"telemetry_interval_zero", "[telemetry]\nmin_interval = 0\n" + kSim,
       "2:16: telemetry.min_interval: 0s is out of range: must be between 1s and 365d"},
      {"telemetry_unknown_key", "[telemetry]\nenabled = false\n" + kSim, "2:1: unknown key \"telemetry.enabled\""},
      // The file itself.
      {"directory", "", "is a directory, not a configuration file", Layout::directory},
      {"missing", "", "cannot read the configuration: No such file or directory", Layout::missing},
      {"empty_file", "", "1:1: the file is empty: no drives to monitor"},
      {"comments_only", "# nothing here\n", "1:1: the file is empty: no drives to monitor"},
      {"no_drives", "[daemon]\nlog_level = \"debug\"\n",
       "1:1: no drives to monitor: set [nvme] devices = \"all\" (or a list) or add a [[sim]] table"},
      {"nvme_selects_nothing", "[nvme]\ndevices = []\n",
       "1:1: no drives to monitor: set [nvme] devices = \"all\" (or a list) or add a [[sim]] table"},
  };
}

// `text` with @DIR@, which stands for the test's directory, replaced.
std::string in_dir(std::string text, const test::TempDir& dir) {
  for (auto at = text.find("@DIR@"); at != std::string::npos; at = text.find("@DIR@", at + dir.path().size())) {
    text.replace(at, 5, dir.path());
  }
  return text;
}

// Writes the row's configuration under a fresh directory; returns its path.
std::string lay_out(const test::TempDir& dir, const Row& row) {
  const std::string path = dir.path() + "/nvmond.toml";
  if (row.layout == Layout::directory) std::filesystem::create_directory(path);
  if (row.layout == Layout::file) std::ofstream(path) << in_dir(row.text, dir);
  return path;
}

class ConfigRejects : public ::testing::TestWithParam<Row> {};

TEST_P(ConfigRejects, WithFileLineColAndWhy) {
  test::TempDir dir("nvmond-rejects");
  const std::string path = lay_out(dir, GetParam());
  const char* sep = GetParam().layout == Layout::file ? ":" : ": ";
  EXPECT_EQ(test::config_error_of([&] { load_config(path); }), path + sep + in_dir(GetParam().expected, dir));
}

INSTANTIATE_TEST_SUITE_P(EveryRejectedValue, ConfigRejects, ::testing::ValuesIn(rejected()),
                         [](const auto& row) { return row.param.name; });

// The bounds are inclusive and the accepted forms stay accepted: each row is
// one step inside a rejected one above.
struct Accept {
  std::string name;
  std::string text;
};

std::vector<Accept> accepted() {
  return {
      {"listen_localhost", "[daemon]\nlisten = \"localhost:9947\"\n" + kSim},
      {"listen_ipv6", "[daemon]\nlisten = \"[::1]:9947\"\n" + kSim},
      {"listen_any_port_65535", "[daemon]\nlisten = \"0.0.0.0:65535\"\n" + kSim},
      {"listen_octets_255", "[daemon]\nlisten = \"255.255.255.255:1\"\n" + kSim},
      {"poll_interval_100ms", "[collection]\npoll_interval = \"100ms\"\n" + kSim},
      {"poll_interval_1d", "[collection]\npoll_interval = \"1d\"\n" + kSim},
      {"factor_1e7_with_1d_polls", "[collection]\npoll_interval = \"1d\"\n" + accelerated("1e7")},
      {"write_rate_equal_to_the_drive", kSim + "write_rate = \"1000MB/s\"\n"},
      {"sims_256", sims(kMaxSimDrives)},
      {"nvme_only", "[nvme]\ndevices = \"all\"\n"},
      {"control_group_and_socket_that_exist", "[control]\ngroup = \"root\"\nsocket = \"@DIR@/control.sock\"\n" + kSim},
      {"selftest_extended_every_week_on_two_concurrent",
       "[daemon]\nmax_concurrent_selftests = 2\n" + kSim +
           "[[selftest]]\nname = \"weekly\"\ndrives = [\"A\"]\nkind = \"extended\"\nschedule = \"every 7d\"\n"},
      {"performance_at_the_bounds",
       kSim + "[thermal.performance]\ndrop_share = 0.99\nmargin_c = 50\nbaseline_intervals = 10000\n"},
  };
}

class ConfigAccepts : public ::testing::TestWithParam<Accept> {};

TEST_P(ConfigAccepts, ValuesAtTheBounds) {
  test::TempDir dir("nvmond-accepts");
  const std::string path = dir.path() + "/nvmond.toml";
  std::ofstream(path) << in_dir(GetParam().text, dir);
  EXPECT_EQ(test::config_error_of([&] { load_config(path); }), "(no error)");
}

INSTANTIATE_TEST_SUITE_P(AtTheBounds, ConfigAccepts, ::testing::ValuesIn(accepted()),
                         [](const auto& row) { return row.param.name; });

// A reload keeps the running clock, so the new file's intervals are checked
// against that clock rather than against the [clock] table the file has.
TEST(ConfigRejects, ReloadedIntervalsAreCheckedAgainstTheRunningClock) {
  test::TempDir dir("nvmond-rejects");
  const std::string path = dir.path() + "/nvmond.toml";
  std::ofstream(path) << "[collection]\npoll_interval = \"100ms\"\n" + kSim;
  DaemonConfig next = load_config(path);
  EXPECT_EQ(real_poll_problem(next), std::nullopt);
  next.clock.accelerated = true;
  next.clock.factor = 60;  // 1.7 ms of real time
  EXPECT_EQ(real_poll_problem(next), std::nullopt);
  next.clock.factor = 1000;
  EXPECT_EQ(
      real_poll_problem(next),
      "1000 makes a 100ms poll_interval poll every 0.1 ms of real time; keep poll_interval / factor at least 1ms");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
