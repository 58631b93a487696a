#include "report/run_tables.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runmodel/pts_profile.hpp"
#include "report/markup.hpp"
#include "report/run_charts.hpp"
#include "report/run_summary.hpp"

namespace nvmond::report {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "–" : s; }

std::string mix(double read_pct) { return num(read_pct) + "/" + num(100 - read_pct); }

std::string elapsed(double s) {
  if (!std::isfinite(s)) return "–";
  const long t = std::lround(s);
  return std::to_string(t / 3600) + " h " + std::to_string(t / 60 % 60) + " min " + std::to_string(t % 60) + " s";
}

void add(Facts& f, const std::string& k, const std::string& v) {
  if (!v.empty()) f.emplace_back(k, v);
}

// "enabled as found; disabled for the test; put back at T": what PTS-E
// asks a report to state, and whether the drive was left as it was.
std::string write_cache_text(const WriteCacheRecord& w) {
  auto state = [](const std::optional<bool>& v) { return v ? (*v ? "enabled" : "disabled") : "unknown"; };
  std::string text = fmt::format("{} as found; {} for the test", state(w.found), state(w.during));
  if (w.restored_at) text += "; put back at " + *w.restored_at;
  if (w.restore_failure) text += "; NOT put back: " + *w.restore_failure;
  return text + " (" + w.detail + ")";
}

// "client — PTS-C 2.0.x: active range 75 %, write cache enabled": the
// conditions the profile sets, beside the write cache as the run found it.
// A test that is not a PTS test runs under them without the name.
std::string profile_text(const ProfileSpec& p, bool pts) {
  return fmt::format("{} — {}active range {} %, write cache {}", p.name,
                     pts ? std::string(p.standard) + ": " : std::string(), num(100 * p.active_range),
                     p.write_cache_enabled ? "enabled" : "disabled");
}

// What a test that is not a PTS test rests on; empty for the PTS's tests
// and for a test this nvmond does not know.
std::string basis_of(const std::string& test, const TestBases& bases) {
  auto it = bases.find(test);
  return it == bases.end() ? std::string() : it->second;
}

// "50 rounds (CBW 0/100 T32Q32 pre-write), 5 before each of 10 sweep
// rounds, 0 h 50 min 0 s in all": that CBW's pre-write between rounds ran.
std::string prewrite_text(const RunRecord& run) {
  std::size_t count = 0;
  double secs = 0;
  std::set<double> before;
  std::string label;
  for (const auto& r : run.rounds) {
    if (phase_from_name(r.phase) != Phase::prewrite) continue;
    ++count;
    if (std::isfinite(r.seconds)) secs += r.seconds;
    if (std::isfinite(r.round)) before.insert(r.round);
    if (r.element) label = r.element->label;
  }
  if (count == 0) return "none";
  std::string text = std::to_string(count) + (count == 1 ? " round" : " rounds");
  if (!label.empty()) text += " (" + label + ")";
  const std::size_t each = before.empty() ? 0 : count / before.size();
  if (each > 0 && each * before.size() == count) {
    text += ", " + std::to_string(each) + " before each of " + std::to_string(before.size()) + " sweep rounds";
  } else if (!before.empty()) {
    text += ", before " + std::to_string(before.size()) + " sweep rounds";
  }
  return text + ", " + elapsed(secs) + " in all";
}

}  // namespace

bool is_pts_test(const RunRecord& run, const TestBases& bases) { return basis_of(run.header.test, bases).empty(); }

std::string test_basis_text(const RunRecord& run, const TestBases& bases) {
  const std::string basis = basis_of(run.header.test, bases);
  if (!basis.empty()) return "not a PTS test: " + basis;
  return run.header.profile ? profile_spec(*run.header.profile).standard : "";
}

Facts drive_facts(const RunRecord& run) {
  const auto& t = run.header.target;
  Facts f;
  add(f, "Model", or_dash(t.model));
  add(f, "Serial", or_dash(t.serial));
  add(f, "Firmware", or_dash(t.firmware));
  add(f, "Target", or_dash(t.path));
  // A size of 0 is one the run did not learn.
  const auto capacity = static_cast<double>(t.capacity_bytes);
  if (t.capacity_bytes > 0) add(f, "Capacity", bytes(capacity));
  if (t.tested_range_bytes > 0) {
    const auto tested = static_cast<double>(t.tested_range_bytes);
    std::string v = bytes(tested);
    if (t.capacity_bytes > 0) v += " (" + num(100 * tested / capacity, 1) + " % of capacity)";
    add(f, "Tested range", v);
  }
  std::string rated;
  if (t.rated_dwpd) rated = num(*t.rated_dwpd, 2) + " DWPD";
  if (t.rated_endurance_bytes) rated += (rated.empty() ? "" : ", ") + bytes(*t.rated_endurance_bytes) + " written";
  add(f, "Rated endurance", rated.empty() ? "not given" : rated);
  if (t.warning_temp_c) {
    add(f, "WCTEMP / CCTEMP",
        num(*t.warning_temp_c) + " °C / " + (t.critical_temp_c ? num(*t.critical_temp_c) + " °C" : std::string("–")));
  }
  return f;
}

Facts test_facts(const RunRecord& run, const TestBases& bases) {
  const RunHeader& h = run.header;
  Facts f;
  add(f, "Test", or_dash(h.test));
  const bool pts = is_pts_test(run, bases);
  if (!pts) add(f, "Basis", test_basis_text(run, bases));
  if (h.profile) add(f, "Profile", profile_text(profile_spec(*h.profile), pts));
  add(f, "Run", run_id_text(run));
  const std::string status = run.status ? std::string(to_text(*run.status)) : std::string();
  add(f, "Status", or_dash(status) + (h.failure ? ": " + *h.failure : ""));
  add(f, "Started", or_dash(h.started_at));
  add(f, "Ended", h.ended_at ? *h.ended_at : "– (not ended)");
  if (std::isfinite(run.duration_s)) add(f, "Duration", elapsed(run.duration_s));
  if (h.simulated_clock) add(f, "Clock", "simulated (not wall time)");
  add(f, "nvmond version", or_dash(h.nvmond_version));
  if (h.write_cache) add(f, "Write cache", write_cache_text(*h.write_cache));
  add(f, "Purge",
      h.purge ? h.purge->method + (h.purge->detail.empty() ? "" : " — " + h.purge->detail) : "none recorded");
  std::string pre;
  for (const auto& p : run.preconditioning) {
    if (!pre.empty()) pre += "; ";
    pre += or_dash(p.kind);
    if (std::isfinite(p.bytes)) pre += ", " + bytes(p.bytes);
    if (std::isfinite(p.seconds)) pre += " in " + elapsed(p.seconds);
    if (std::isfinite(p.rounds)) pre += ", " + num(p.rounds, 0) + " rounds";
    if (p.steady_state) {
      const auto& ss = *p.steady_state;
      pre += ss.reached ? ", steady at round " + pts_round(ss.round) + " (window rounds " + pts_round(ss.window_from) +
                              "–" + pts_round(ss.window_to) + ")"
                        : ", NOT steady (the test rounds started without it)";
    }
  }
  add(f, "Preconditioning", pre.empty() ? "none recorded" : pre);
  if (h.parameters.count("prewrite_rounds")) add(f, "Pre-write", prewrite_text(run));
  return f;
}

Facts steady_state_facts(const SteadyState& s, const std::optional<MeasurementWindow>& window,
                         const std::string& subtest) {
  Facts f;
  if (!subtest.empty()) add(f, "Sub-test", subtest);
  const bool bw = tracked_variable(s.variable) != TrackedVariable::iops;
  auto level = [&](double v) { return bw ? bytes_per_second(v) : si(v) + " IOPS"; };
  add(f, "Steady state", s.reached ? "reached at round " + pts_round(s.round) : "not reached");
  add(f, "Tracked variable", or_dash(s.variable));
  if (std::isfinite(s.window_from))
    add(f, "Window", "rounds " + pts_round(s.window_from) + "–" + pts_round(s.window_to));
  if (std::isfinite(s.average)) add(f, "Window average", level(s.average));
  if (std::isfinite(s.range)) add(f, "Range", level(s.range) + " (limit " + level(s.range_limit) + ")");
  if (std::isfinite(s.slope_excursion)) {
    add(f, "Fitted-line excursion", level(s.slope_excursion) + " (limit " + level(s.slope_excursion_limit) + ")");
  }
  // Several tracked variables (the IOPS test's three): each one's verdict.
  if (s.variables.size() > 1) {
    for (const auto& v : s.variables) {
      const bool ok = v.range_ok && v.slope_ok;
      add(f, "Tracked: " + or_dash(v.element),
          (ok ? "steady" : "not steady") + std::string(", window average ") +
              (tracked_variable(v.variable) == TrackedVariable::iops ? si(v.average) + " IOPS" : level(v.average)));
    }
  }
  if (const auto& m = window; m && std::isfinite(m->from)) {
    add(f, "Measurement window",
        "rounds " + pts_round(m->from) + "–" + pts_round(m->to) +
            (m->steady_state ? " (the steady-state window)" : " (steady state not reached: the last rounds)"));
  }
  return f;
}

Facts wear_facts(const RunRecord& run) {
  Facts f;
  if (!run.drive) return f;
  const auto& d = *run.drive;
  if (std::isfinite(d.host_bytes_written)) add(f, "Host bytes written", bytes(d.host_bytes_written));
  if (std::isfinite(d.drive_writes)) add(f, "Drive writes", num(d.drive_writes, 3) + " × capacity");
  if (std::isfinite(d.dwpd_spent)) {
    std::string v = num(d.dwpd_spent, 2) + " drive writes per day at this run's pace";
    if (const auto rated = run.header.target.rated_dwpd; rated && *rated > 0) {
      v += " (" + num(100 * d.dwpd_spent / *rated, 0) + " % of the rated " + num(*rated, 2) + " DWPD)";
    }
    add(f, "DWPD spent", v);
  }
  if (std::isfinite(d.latency_drive_ios) && std::isfinite(d.latency_threshold_s)) {
    const std::string host = d.latency_host_ios_min == d.latency_host_ios_max
                                 ? num(d.latency_host_ios_min, 0)
                                 : num(d.latency_host_ios_min, 0) + "–" + num(d.latency_host_ios_max, 0);
    add(f, "Drive latency monitor",
        "the drive saw " + num(d.latency_drive_ios, 0) + " I/Os over " + num(d.latency_threshold_s * 1000, 0) +
            " ms; the host saw " + host);
  }
  if (d.temperature_c) add(f, "Temperature", num(d.temperature_c->min) + " – " + num(d.temperature_c->max) + " °C");
  add(f, "Throttle events", std::to_string(d.throttle_events.size()));
  return f;
}

std::optional<Table> iops_matrix(const RunRecord& run) {
  std::map<double, std::map<double, double>, std::greater<>> cells;  // bs → read_pct → IOPS
  std::set<double, std::greater<>> mixes;
  for (const auto& e : run.elements) {
    if (!std::isfinite(e.element.bs) || !std::isfinite(e.element.read_pct)) continue;
    cells[e.element.bs][e.element.read_pct] = e.iops;
    mixes.insert(e.element.read_pct);
  }
  if (cells.size() < 2 || mixes.size() < 2) return std::nullopt;
  Table t{"iops-matrix", "IOPS by block size (rows) and read/write mix (columns)", {"Block size"}, {}};
  for (const double m : mixes) t.header.push_back(mix(m));
  for (const auto& [bs, row] : cells) {
    std::vector<Cell> r{block_size(bs)};
    for (const double m : mixes) {
      const auto it = row.find(m);
      r.emplace_back(it == row.end() ? "–" : si(it->second), "num");
    }
    t.rows.push_back(std::move(r));
  }
  return t;
}

std::optional<Table> element_table(const RunRecord& run) {
  if (run.elements.empty()) return std::nullopt;
  Table t{"elements",
          "Throughput and latency per test element",
          {"Element", "Block size", "R/W", "Threads × QD", "Op", "IOPS", "Throughput", "Mean", "p99", "p99.9", "p99.99",
           "p99.999", "Max"},
          {}};
  for (const auto& e : run.elements) {
    const auto& el = e.element;
    const std::string qd = num(el.threads, 0) + " × " + num(el.queue_depth, 0);
    for (const auto& [name, op] : {std::pair{"read", &e.ops.read}, std::pair{"write", &e.ops.write}}) {
      if (!*op) continue;
      const auto& l = (*op)->latency;
      t.rows.push_back({or_dash(el.label), block_size(el.bs), mix(el.read_pct), qd, name, Cell(si((*op)->iops), "num"),
                        Cell(bytes_per_second((*op)->bytes_per_second), "num"), Cell(seconds(l.mean), "num"),
                        Cell(seconds(l.p99), "num"), Cell(seconds(l.p999), "num"), Cell(seconds(l.p9999), "num"),
                        Cell(seconds(l.p99999), "num"), Cell(seconds(l.max), "num")});
    }
  }
  return t;
}

std::optional<Table> qos_table(const RunRecord& run) {
  if (!run.qos || run.qos->checks.empty()) return std::nullopt;
  Table t{"qos-checks",
          "Declared QoS against measured latency",
          {"Op", "Block size", "Quantile", "Limit", "Measured", "Verdict"},
          {}};
  for (const auto& c : run.qos->checks) {
    t.rows.push_back({or_dash(c.op), block_size(c.bs), "p" + num(c.quantile * 100, 3), Cell(seconds(c.limit_s), "num"),
                      Cell(seconds(c.measured_s), "num"), Cell(c.pass ? "pass" : "FAIL", c.pass ? "pass" : "fail")});
  }
  return t;
}

std::optional<Table> throttle_table(const RunRecord& run) {
  if (!run.drive || run.drive->throttle_events.empty()) return std::nullopt;
  Table t{"throttle-events", "Thermal throttle events", {"Start", "End", "Duration", "Peak", "Sources"}, {}};
  for (const auto& e : run.drive->throttle_events) {
    std::string sources;
    for (const auto& s : e.sources) sources += (sources.empty() ? "" : ", ") + s;
    const double d = e.end - e.start;
    t.rows.push_back({or_dash(e.start_text), e.end_text.empty() ? "still throttling" : e.end_text,
                      Cell(std::isfinite(d) ? elapsed(d) : "–", "num"), Cell(num(e.peak_c) + " °C", "num"),
                      or_dash(sources)});
  }
  return t;
}

std::optional<Table> smart_table(const RunRecord& run) {
  if (!run.drive || (run.drive->smart_before.empty() && run.drive->smart_after.empty())) return std::nullopt;
  Table t{"smart", "SMART / health log before and after the run", {"Field", "Before", "After"}, {}};
  std::vector<std::string> keys;
  for (const auto* side : {&run.drive->smart_before, &run.drive->smart_after}) {
    for (const auto& [k, v] : *side) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  auto find = [](const auto& side, const std::string& k) -> std::string {
    for (const auto& [key, v] : side) {
      if (key == k) return v;
    }
    return "–";
  };
  for (const auto& k : keys) {
    t.rows.push_back({k, Cell(find(run.drive->smart_before, k), "num"), Cell(find(run.drive->smart_after, k), "num")});
  }
  return t;
}

}  // namespace nvmond::report

namespace nvmond::report {

namespace {

double mean_of(const std::vector<const Round*>& rounds, double Round::*field, std::size_t last = 0) {
  double sum = 0;
  std::size_t n = 0;
  const std::size_t from = last > 0 && rounds.size() > last ? rounds.size() - last : 0;
  for (std::size_t i = from; i < rounds.size(); ++i) {
    if (std::isfinite(rounds[i]->*field)) sum += rounds[i]->*field, ++n;
  }
  return n > 0 ? sum / static_cast<double>(n) : kAbsent;
}

double peak_latency(const std::vector<const Round*>& rounds, double Latency::*field) {
  double peak = kAbsent;
  for (const Round* r : rounds) {
    const auto& op = r->ops.write ? r->ops.write : r->ops.read;
    if (op && std::isfinite(op->latency.*field) && !(peak >= op->latency.*field)) peak = op->latency.*field;
  }
  return peak;
}

std::string rate_text(double v, bool bandwidth) {
  if (!std::isfinite(v)) return "–";
  return bandwidth ? bytes_per_second(v) : si(v);
}

// HIR: a burst's IOPS as a multiple of the steady state's.
std::optional<Table> hir_table(const RunRecord& run, const std::vector<StageRounds>& stages) {
  const double steady =
      run.steady_state && std::isfinite(run.steady_state->average) ? run.steady_state->average : kAbsent;
  Table t{"stage-table",
          "Mean IOPS of each segment's bursts; × steady state: against the steady state's average (" +
              rate_text(steady, false) + " IOPS)",
          {"Segment", "Bursts", "Mean IOPS", "× steady state"},
          {}};
  for (const auto& st : stages) {
    if (run.steady_state && std::isfinite(run.steady_state->stage) && st.stage == run.steady_state->stage) continue;
    const double m = mean_of(st.rounds, &Round::iops);
    t.rows.push_back({st.label,
                      {std::to_string(st.rounds.size()), "num"},
                      {rate_text(m, false), "num"},
                      {std::isfinite(steady) && steady > 0 ? num(m / steady, 2) : "–", "num"}});
  }
  if (t.rows.empty()) return std::nullopt;
  return t;
}

// XSR: access group 3's recovery: the time from its start to its first
// round at access group 1's final throughput (its last `window` rounds).
std::optional<Table> xsr_table(const std::vector<StageRounds>& stages) {
  constexpr std::size_t kFinal = 5;
  Table t{"stage-table",
          "Final: the mean of each group's last 5 rounds; recovery: access group 3's time to its first round at "
          "access group 1's final throughput",
          {"Access group", "Rounds", "Mean", "Final", "Mean RT peak", "Max RT peak", "Recovery"},
          {}};
  const double target = stages.empty() ? kAbsent : mean_of(stages.front().rounds, &Round::bytes_per_second, kFinal);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto& st = stages[i];
    std::string recovery = "–";
    if (i == 2 && std::isfinite(target)) {
      recovery = "not within the group";
      for (const Round* r : st.rounds) {
        if (r->bytes_per_second >= target) {
          recovery = elapsed(r->start + r->seconds - st.rounds.front()->start);
          break;
        }
      }
    }
    t.rows.push_back({st.label,
                      {std::to_string(st.rounds.size()), "num"},
                      {rate_text(mean_of(st.rounds, &Round::bytes_per_second), true), "num"},
                      {rate_text(mean_of(st.rounds, &Round::bytes_per_second, kFinal), true), "num"},
                      {seconds(peak_latency(st.rounds, &Latency::mean)), "num"},
                      {seconds(peak_latency(st.rounds, &Latency::max)), "num"},
                      {recovery, "num"}});
  }
  if (t.rows.empty()) return std::nullopt;
  return t;
}

}  // namespace

std::optional<Table> stage_table(const RunRecord& run) {
  const auto kind = test_kind(run);
  if (kind == TestKind::hir) return hir_table(run, rounds_by_stage(run));
  if (kind == TestKind::xsr) return xsr_table(rounds_by_stage(run));
  return std::nullopt;
}

}  // namespace nvmond::report
