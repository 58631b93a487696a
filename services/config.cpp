#include "services/config.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "core/config_reader.hpp"
#include "services/listen_address.hpp"
#include "pts/plan.hpp"
#include "pts/catalog.hpp"
#include "schedule/run_name.hpp"

namespace nvmond {

namespace {

using namespace std::chrono_literals;

// [[soak]] tables; each one's test and parameters are checked here, so a
// typo fails the config, not the run.
std::vector<SoakSpec> read_soaks(TableReader& root);
// [[selftest]] tables: names unique, drives non-empty and distinct, kind
// short (default) or extended, a schedule as [[soak]] has.
std::vector<SelfTestSpec> read_selftests(TableReader& root);

// Bounds of the daemon's own keys (docs/configuration.md). Polling faster
// than 100 ms only burns CPU and floods the log; a rescan is a sysfs walk.
constexpr DurationRange kPollInterval{100ms, 24h};
constexpr DurationRange kCommandTimeout{100ms, 1h};
constexpr DurationRange kRescanInterval{1s, 24h};
constexpr NumberRange kClockFactor{1, 1e7};
// Stored as int64 nanoseconds since 1970, which end in 2262.
constexpr int kFirstStartYear = 1970;
constexpr int kLastStartYear = 2200;

struct IntervalKey {
  const char* key;
  Duration CollectionSettings::*field;
  DurationRange range;
};
constexpr IntervalKey kCollectionKeys[] = {
    {"poll_interval", &CollectionSettings::poll_interval, kPollInterval},
    {"command_timeout", &CollectionSettings::command_timeout, kCommandTimeout},
    {"rescan_interval", &CollectionSettings::rescan_interval, kRescanInterval},
};

WallTime to_wall(const toml::date_time& dt) {
  namespace c = std::chrono;
  auto days = c::sys_days(c::year_month_day(c::year(dt.date.year), c::month(dt.date.month), c::day(dt.date.day)));
  auto t = days + c::hours(dt.time.hour) + c::minutes(dt.time.minute) + c::seconds(dt.time.second) +
           c::nanoseconds(dt.time.nanosecond);
  if (dt.offset) t -= c::minutes(dt.offset->minutes);
  return c::time_point_cast<WallTime::duration>(t);
}

void read_daemon(TableReader& t, DaemonConfig& c) {
  if (auto v = t.string("listen")) {
    ListenParse parsed = parse_listen_address(*v);
    if (!parsed.address) t.fail("listen", fmt::format("\"{}\": {}", *v, parsed.problem));
    c.listen = *v;
  }
  if (auto v = t.string("state_dir")) {
    if (v->empty()) t.fail("state_dir", "must not be empty");
    c.state_dir = *v;
  }
  if (auto v = t.string("web_config")) {
    if (v->empty()) t.fail("web_config", "must name a file");
    // Relative to the configuration file, so a unit and a test agree on it.
    auto p = std::filesystem::path(*v);
    c.web_config = p.is_relative() ? (std::filesystem::path(t.file()).parent_path() / p).string() : *v;
  }
  if (auto v = t.string("log_level")) {
    if (!log::parse_level(*v, c.log_level)) t.fail("log_level", "expected debug, info, warning or error");
  }
  if (auto v = t.integer("max_concurrent_selftests", IntegerRange{1, 1024})) c.max_concurrent_selftests = *v;
  t.finish();
}

// Under systemd's RuntimeDirectory=nvmond the socket goes where it says.
std::string default_control_socket() {
  const char* dir = std::getenv("RUNTIME_DIRECTORY");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/run/nvmond") + "/control.sock";
}

// A daemon refuses to start on a group or a configured socket path it cannot
// use, so the check says so first; tools reading the file for its socket
// path may run where the group does not exist.
void read_control(TableReader& t, DaemonConfig& c, ConfigUse use) {
  if (auto v = t.string("socket")) {
    if (v->empty() || (*v)[0] != '/') t.fail("socket", "expected an absolute path");
    if (v->size() >= 108) t.fail("socket", "longer than a Unix socket path may be (107 bytes)");
    if (use == ConfigUse::daemon) {
      if (auto problem = control_socket_problem(*v)) t.fail("socket", *problem);
    }
    c.control.socket = *v;
    c.control_explicit = true;
  }
  if (auto g = t.string("group")) {
    if (use == ConfigUse::daemon) {
      if (auto problem = control_group_problem(*g)) t.fail("group", *problem);
    }
    c.control.group = *g;
  }
  t.finish();
}

void read_collection(TableReader& t, CollectionSettings& s) {
  for (const auto& k : kCollectionKeys) {
    if (auto d = t.duration(k.key, k.range)) s.*k.field = *d;
  }
  t.finish();
}

// A capture is at most data area 3's 32 MiB; a cap below 1 MiB would keep
// little more than headers.
constexpr ByteRange kTelemetryBytes{std::uint64_t{1} << 20, std::uint64_t{1} << 40};

void read_telemetry(TableReader& t, TelemetrySettings& s) {
  if (auto v = t.boolean("capture")) s.capture = *v;
  if (auto v = t.duration("min_interval", {std::chrono::seconds(1), std::chrono::hours(24 * 365)})) s.min_interval = *v;
  if (auto v = t.integer("data_area", IntegerRange{1, 3})) s.data_area = static_cast<unsigned>(*v);
  if (auto v = t.bytes("max_bytes_per_drive", kTelemetryBytes)) s.max_bytes_per_drive = *v;
  if (auto v = t.bytes("max_bytes", kTelemetryBytes)) s.max_bytes = *v;
  t.finish();
}

void read_clock(TableReader& t, ClockSettings& s) {
  auto mode = t.choice("mode", {"system", "accelerated"});
  s.accelerated = mode && *mode == "accelerated";
  if (auto f = t.number("factor", kClockFactor)) s.factor = *f;
  if (const toml::node* n = t.node("start")) {
    if (!n->is_date_time()) t.fail("start", "expected an offset date-time, e.g. 2026-01-01T00:00:00Z");
    const auto dt = *n->value<toml::date_time>();
    if (dt.date.year < kFirstStartYear || dt.date.year >= kLastStartYear) {
      t.fail("start", fmt::format("must be between {}-01-01 and {}-01-01", kFirstStartYear, kLastStartYear));
    }
    s.start = to_wall(dt);
  }
  if (!s.accelerated && s.factor != 1) t.fail("factor", "only meaningful with mode = \"accelerated\"");
  t.finish();
}

DriveRating rating_of(const SimEndurance& e) {
  DriveRating r;
  if (e.rated_tbw_bytes > 0) {
    r.rated_tbw_bytes = static_cast<std::uint64_t>(e.rated_tbw_bytes);
  } else if (e.rated_dwpd > 0) {
    r.rated_dwpd = e.rated_dwpd;
    r.warranty_years = e.warranty_years;
  }
  return r;
}

std::optional<Duration> optional_interval(TableReader& t) { return t.duration("poll_interval", kPollInterval); }

// The shortest poll interval any drive uses, in clock time.
Duration shortest_poll(const DaemonConfig& c) {
  Duration d = c.collection.poll_interval;
  if (c.nvme && c.nvme->poll_interval) d = std::min(d, *c.nvme->poll_interval);
  for (const auto& s : c.sims) d = std::min(d, s.poll_interval.value_or(d));
  return d;
}

void check_real_poll_rate(TableReader& root, const DaemonConfig& c) {
  if (auto problem = real_poll_problem(c)) root.table("clock")->fail("factor", *problem);
}

bool selects_nothing(const NvmeSelection& s) { return !s.all && s.paths.empty() && s.serials.empty(); }

// A daemon that monitors nothing is a mistake (an empty or truncated file, a
// lost include), not a configuration: refuse it at start and on reload.
void require_drives(const toml::table& root, const DaemonConfig& c) {
  if (!c.sims.empty() || (c.nvme && !selects_nothing(c.nvme->selection))) return;
  if (root.empty()) {
    throw ConfigError(fmt::format("{}:1:1: the file is empty: no drives to monitor", c.file));
  }
  throw ConfigError(fmt::format(
      "{}:1:1: no drives to monitor: set [nvme] devices = \"all\" (or a list) or add a [[sim]] table", c.file));
}

}  // namespace

std::string default_state_dir() {
  // systemd's StateDirectory= exports the path; it may list several.
  if (const char* env = std::getenv("STATE_DIRECTORY"); env != nullptr && *env != '\0') {
    std::string s(env);
    return s.substr(0, s.find(':'));
  }
  return "/var/lib/nvmond";
}

std::optional<std::string> real_poll_problem(const DaemonConfig& c) {
  if (!c.clock.accelerated) return std::nullopt;
  const Duration poll = shortest_poll(c);
  const double real_s = seconds(poll) / c.clock.factor;
  if (real_s >= seconds(kMinRealPollInterval)) return std::nullopt;
  return fmt::format(
      "{} makes a {} poll_interval poll every {:.3g} ms of real time; keep "
      "poll_interval / factor at least {}",
      c.clock.factor, format_duration(poll), real_s * 1e3, format_duration(kMinRealPollInterval));
}

DaemonConfig load_config(const std::string& path, ConfigUse use, const WebConfigLoader& load_web_config) {
  toml::table root = parse_toml_file(path);
  TableReader r(root, path, "");
  DaemonConfig c;
  c.file = path;
  c.state_dir = default_state_dir();
  c.control.socket = default_control_socket();
  if (auto t = r.table("daemon")) read_daemon(*t, c);
  if (auto t = r.table("collection")) read_collection(*t, c.collection);
  if (auto t = r.table("control")) read_control(*t, c, use);
  if (auto t = r.table("clock")) read_clock(*t, c.clock);
  if (auto t = r.table("telemetry")) read_telemetry(*t, c.telemetry);
  if (auto t = r.table("nvme")) {
    NvmeSettings n;
    n.selection = parse_nvme_selection(*t);
    n.poll_interval = optional_interval(*t);
    t->finish();
    c.nvme = std::move(n);
  }
  std::map<std::string, std::string> seen_serials, seen_names;
  for (auto& t : r.array_of_tables("sim")) {
    if (c.sims.size() == kMaxSimDrives) {
      t.fail_here(fmt::format("{}: at most {} simulated drives", t.where(), kMaxSimDrives));
    }
    SimSettings s;
    s.spec = parse_sim_drive(t);
    s.poll_interval = optional_interval(t);
    t.finish();
    if (auto [it, fresh] = seen_serials.emplace(s.spec.serial, t.where()); !fresh) {
      t.fail("serial", fmt::format("duplicate device: serial \"{}\" is already used by {}", s.spec.serial, it->second));
    }
    if (auto [it, fresh] = seen_names.emplace(s.spec.name, t.where()); !fresh) {
      t.fail("name", fmt::format("duplicate device: name \"{}\" is already used by {}", s.spec.name, it->second));
    }
    c.ratings[s.spec.serial] = rating_of(s.spec.endurance);
    c.sims.push_back(std::move(s));
  }
  // [[drive]]: per-drive settings of real drives, keyed by serial.
  for (auto& t : r.array_of_tables("drive")) {
    auto serial = t.string("serial");
    if (!serial) t.fail_here(t.where() + ": serial is required");
    if (c.ratings.count(*serial) != 0) {
      t.fail("serial", fmt::format("duplicate device: serial \"{}\" is configured twice", *serial));
    }
    c.ratings[*serial] = read_drive_rating(t);
    t.finish();
  }
  c.analytics = read_analytics_config(r);
  std::vector<std::string> sim_serials;
  for (const auto& s : c.sims) sim_serials.push_back(s.spec.serial);
  c.jobs = read_jobs_config(r, &sim_serials);
  c.soaks = read_soaks(r);
  c.selftests = read_selftests(r);
  r.finish();
  if (!c.web_config.empty() && load_web_config) c.security = load_web_config(c.web_config);
  check_real_poll_rate(r, c);
  if (use == ConfigUse::daemon) require_drives(root, c);
  return c;
}

namespace {

std::vector<SoakSpec> read_soaks(TableReader& root) {
  std::vector<SoakSpec> out;
  std::set<std::string> names;
  for (auto& t : root.array_of_tables("soak")) {
    SoakSpec s;
    auto name = t.string("name");
    auto test = t.string("test");
    auto target = t.string("target");
    if (!name || !test || !target) t.fail_here(t.where() + ": name, test and target are required");
    // The name becomes a directory under state_dir and part of log lines.
    if (auto problem = run_name_problem(*name)) t.fail("name", *problem);
    s.name = *name;
    s.test = *t.choice("test", test_names());
    // The PTS profile whose conditions the test runs under (PTS-E unless given).
    PtsProfile profile = PtsProfile::enterprise;
    if (auto given_profile = t.choice("profile", profile_names())) {
      profile = parse_profile(*given_profile);
      try {
        (void)test_schema(s.test, profile);
      } catch (const ParamError& e) {
        t.fail("profile", e.what());
      }
    }
    s.target = *target;
    if (!names.insert(s.name).second) t.fail("name", "duplicate soak name \"" + s.name + "\"");
    // TOML's own types are kept: an integer is not read back from text.
    GivenParams given;
    if (const toml::node* p = t.node("params")) {
      const toml::table* tbl = p->as_table();
      if (tbl == nullptr) t.fail("params", "expected a table of KEY = VALUE");
      for (const auto& [k, v] : *tbl) {
        const std::string key(k.str());
        if (auto str = v.value_exact<std::string>()) given[key] = *str;
        else if (auto i = v.value_exact<std::int64_t>()) given[key] = *i;
        else if (auto d = v.value_exact<double>()) given[key] = *d;
        else if (auto b = v.value_exact<bool>()) given[key] = *b;
        else t.fail("params", "parameter " + key + ": expected a string, number or boolean");
      }
    }
    s.timing = read_soak_timing(t);
    // Only what the drive decides is left for the run's start on it.
    try {
      s.request = validate_typed(s.test, given, profile);
    } catch (const ParamError& e) {
      t.fail("params", e.what());
    }
    t.finish();
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<SelfTestSpec> read_selftests(TableReader& root) {
  std::vector<SelfTestSpec> out;
  std::set<std::string> names;
  for (auto& t : root.array_of_tables("selftest")) {
    SelfTestSpec s;
    auto name = t.string("name");
    auto schedule = t.string("schedule");
    if (!name || !schedule || !t.node("drives")) t.fail_here(t.where() + ": name, drives and schedule are required");
    // The name keys what the store remembers of each start.
    if (auto problem = run_name_problem(*name)) t.fail("name", *problem);
    if (!names.insert(*name).second) t.fail("name", "duplicate selftest name \"" + *name + "\"");
    s.name = *name;
    s.drives = t.strings("drives");
    if (s.drives.empty()) t.fail("drives", "expected one or more drive serials");
    std::set<std::string> serials;
    for (const auto& d : s.drives) {
      if (d.empty()) t.fail("drives", "a serial must not be empty");
      if (!serials.insert(d).second) t.fail("drives", "serial \"" + d + "\" is listed twice");
    }
    if (auto k = t.choice("kind", self_test_kind_names())) s.kind = *self_test_kind_from_name(*k);
    auto parsed = parse_schedule(*schedule);
    if (!parsed) t.fail("schedule", parsed.error().message);
    s.schedule = std::move(*parsed);
    t.finish();
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

int check_config_command(const std::string& path, const WebConfigLoader& load_web_config) {
  try {
    load_config(path, ConfigUse::daemon, load_web_config);
    std::printf("%s: ok\n", path.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

}  // namespace nvmond
