#include "daemon/config.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "core/config_reader.hpp"
#include "pts/test_plan.hpp"

namespace nvmond {

// [[soak]] tables; each one's test and parameters are checked here, so a
// typo fails the config, not the run.
std::vector<SoakSpec> read_soaks(TableReader& root);

namespace {

std::string default_state_dir() {
  // systemd's StateDirectory= exports the path; it may list several.
  if (const char* env = std::getenv("STATE_DIRECTORY"); env != nullptr && *env != '\0') {
    std::string s(env);
    return s.substr(0, s.find(':'));
  }
  return "/var/lib/nvmond";
}

WallTime to_wall(const toml::date_time& dt) {
  namespace c = std::chrono;
  auto days = c::sys_days(c::year_month_day(c::year(dt.date.year), c::month(dt.date.month),
                                            c::day(dt.date.day)));
  auto t = days + c::hours(dt.time.hour) + c::minutes(dt.time.minute) +
           c::seconds(dt.time.second) + c::nanoseconds(dt.time.nanosecond);
  if (dt.offset) t -= c::minutes(dt.offset->minutes);
  return c::time_point_cast<WallTime::duration>(t);
}

void read_daemon(TableReader& t, DaemonConfig& c) {
  if (auto v = t.string("listen")) {
    if (v->find(':') == std::string::npos) t.fail("listen", "expected HOST:PORT, e.g. 127.0.0.1:9947");
    c.listen = *v;
  }
  if (auto v = t.string("state_dir")) c.state_dir = *v;
  if (auto v = t.string("log_level")) {
    if (!log::parse_level(*v, c.log_level)) t.fail("log_level", "expected debug, info, warning or error");
  }
  t.finish();
}

Duration positive(TableReader& t, std::string_view key, Duration fallback) {
  auto d = t.duration(key);
  if (!d) return fallback;
  if (d->count() == 0) t.fail(key, "must be greater than zero");
  return *d;
}

void read_collection(TableReader& t, CollectionSettings& s) {
  s.poll_interval = positive(t, "poll_interval", s.poll_interval);
  s.command_timeout = positive(t, "command_timeout", s.command_timeout);
  s.rescan_interval = positive(t, "rescan_interval", s.rescan_interval);
  t.finish();
}

void read_clock(TableReader& t, ClockSettings& s) {
  auto mode = t.choice("mode", {"system", "accelerated"});
  s.accelerated = mode && *mode == "accelerated";
  if (auto f = t.number("factor")) {
    if (*f <= 0) t.fail("factor", "must be greater than zero");
    s.factor = *f;
  }
  if (const toml::node* n = t.node("start")) {
    if (!n->is_date_time()) t.fail("start", "expected an offset date-time, e.g. 2026-01-01T00:00:00Z");
    s.start = to_wall(*n->value<toml::date_time>());
  }
  if (!s.accelerated && s.factor != 1) t.fail("factor", "only meaningful with mode = \"accelerated\"");
  t.finish();
}

DriveRating rating_of(const SimDriveSpec& spec) {
  DriveRating r;
  if (spec.rated_tbw_bytes > 0) {
    r.rated_tbw_bytes = static_cast<std::uint64_t>(spec.rated_tbw_bytes);
  } else if (spec.rated_dwpd > 0) {
    r.rated_dwpd = spec.rated_dwpd;
    r.warranty_years = spec.warranty_years;
  }
  return r;
}

std::optional<Duration> optional_interval(TableReader& t) {
  if (!t.node("poll_interval")) return std::nullopt;
  return positive(t, "poll_interval", Duration::zero());
}

}  // namespace

DaemonConfig load_config(const std::string& path) {
  toml::table root = parse_toml_file(path);
  TableReader r(root, path, "");
  DaemonConfig c;
  c.file = path;
  c.state_dir = default_state_dir();
  if (auto t = r.table("daemon")) read_daemon(*t, c);
  if (auto t = r.table("collection")) read_collection(*t, c.collection);
  if (auto t = r.table("clock")) read_clock(*t, c.clock);
  if (auto t = r.table("nvme")) {
    NvmeSettings n;
    n.selection = parse_nvme_selection(*t);
    n.poll_interval = optional_interval(*t);
    t->finish();
    c.nvme = std::move(n);
  }
  std::map<std::string, std::string> seen_serials, seen_names;
  for (auto& t : r.array_of_tables("sim")) {
    SimSettings s;
    s.spec = parse_sim_drive(t);
    s.poll_interval = optional_interval(t);
    t.finish();
    if (auto [it, fresh] = seen_serials.emplace(s.spec.serial, t.where()); !fresh) {
      t.fail("serial", fmt::format("duplicate device: serial \"{}\" is already used by {}",
                                   s.spec.serial, it->second));
    }
    if (auto [it, fresh] = seen_names.emplace(s.spec.name, t.where()); !fresh) {
      t.fail("name", fmt::format("duplicate device: name \"{}\" is already used by {}",
                                 s.spec.name, it->second));
    }
    c.ratings[s.spec.serial] = rating_of(s.spec);
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
  c.jobs = read_jobs_config(r, sim_serials);
  c.soaks = read_soaks(r);
  r.finish();
  return c;
}

std::vector<SoakSpec> read_soaks(TableReader& root) {
  std::vector<SoakSpec> out;
  std::set<std::string> names;
  for (auto& t : root.array_of_tables("soak")) {
    SoakSpec s;
    auto name = t.string("name");
    auto test = t.string("test");
    auto target = t.string("target");
    if (!name || !test || !target) t.fail_here(t.where() + ": name, test and target are required");
    s.name = *name;
    s.test = *t.choice("test", test_names());
    s.target = *target;
    if (!names.insert(s.name).second) t.fail("name", "duplicate soak name \"" + s.name + "\"");
    if (const toml::node* p = t.node("params")) {
      const toml::table* tbl = p->as_table();
      if (tbl == nullptr) t.fail("params", "expected a table of KEY = VALUE");
      for (const auto& [k, v] : *tbl) {
        if (auto str = v.value<std::string>()) s.params[std::string(k.str())] = *str;
        else if (auto i = v.value<std::int64_t>(); i && v.is_integer()) s.params[std::string(k.str())] = std::to_string(*i);
        else if (auto d = v.value<double>()) s.params[std::string(k.str())] = fmt::format("{}", *d);
        else if (auto b = v.value<bool>()) s.params[std::string(k.str())] = *b ? "true" : "false";
        else t.fail("params", "parameter " + std::string(k.str()) + ": expected a string, number or boolean");
      }
    }
    try {
      build_plan(s.test, s.params, TargetFacts{1'000'000'000'000ULL, 1.0});
    } catch (const ParamError& e) {
      t.fail("params", e.what());
    }
    t.finish();
    out.push_back(std::move(s));
  }
  return out;
}

int check_config_command(const std::string& path) {
  try {
    load_config(path);
    std::printf("%s: ok\n", path.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

}  // namespace nvmond
