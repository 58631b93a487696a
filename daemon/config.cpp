#include "daemon/config.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/config_reader.hpp"

namespace nvmond {
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

// Under systemd's RuntimeDirectory=nvmond the socket goes where it says.
std::string default_control_socket() {
  const char* dir = std::getenv("RUNTIME_DIRECTORY");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/run/nvmond") + "/control.sock";
}

void read_control(TableReader& t, DaemonConfig& c) {
  if (auto v = t.string("socket")) {
    if (v->empty() || (*v)[0] != '/') t.fail("socket", "expected an absolute path");
    if (v->size() >= 108) t.fail("socket", "longer than a Unix socket path may be (107 bytes)");
    c.control.socket = *v;
    c.control_explicit = true;
  }
  if (auto g = t.string("group")) c.control.group = *g;
  t.finish();
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
  c.control.socket = default_control_socket();
  if (auto t = r.table("daemon")) read_daemon(*t, c);
  if (auto t = r.table("collection")) read_collection(*t, c.collection);
  if (auto t = r.table("control")) read_control(*t, c);
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
  r.finish();
  return c;
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
