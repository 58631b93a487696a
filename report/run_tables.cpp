#include "report/run_tables.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runmodel/pts_profile.hpp"
#include "runmodel/run_codec.hpp"
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

// The round a steady state was reached at, "–" before it was.
std::string reached_round_text(const std::optional<std::size_t>& round) {
  return pts_round(round ? static_cast<double>(*round) : kAbsent);
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

std::vector<std::pair<std::string, std::string>> smart_fields(const std::optional<SmartRecord>& s) {
  return s ? smart_record_fields(*s) : std::vector<std::pair<std::string, std::string>>{};
}

// "50 rounds (CBW 0/100 T32Q32 pre-write), 5 before each of 10 sweep
// rounds, 0 h 50 min 0 s in all": that CBW's pre-write between rounds ran.
std::string prewrite_text(const RunRecord& run) {
  std::size_t count = 0;
  double secs = 0;
  std::set<std::size_t> before;
  std::string label;
  for (const RoundRecord* r : run.rounds) {
    if (phase_from_name(r->phase) != Phase::prewrite) continue;
    ++count;
    if (std::isfinite(r->seconds)) secs += r->seconds;
    before.insert(r->round);
    // A round without a label or a block size ran no element of its own.
    if (!r->label.empty() || r->bs > 0) label = r->label;
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
  for (const auto& p : run.results->preconditioning) {
    if (!pre.empty()) pre += "; ";
    pre += or_dash(p.kind);
    pre += ", " + bytes(static_cast<double>(p.bytes));
    if (std::isfinite(p.seconds)) pre += " in " + elapsed(p.seconds);
    if (p.rounds) pre += ", " + num(static_cast<double>(*p.rounds), 0) + " rounds";
    if (p.steady_state) {
      const auto& ss = *p.steady_state;
      const WindowCheck* w = window_of(ss);
      pre += ss.verdict.reached ? ", steady at round " + reached_round_text(ss.verdict.round) + " (window rounds " +
                                      pts_round(w ? static_cast<double>(w->first) : kAbsent) + "–" +
                                      pts_round(w ? static_cast<double>(w->last) : kAbsent) + ")"
                                : ", NOT steady (the test rounds started without it)";
    }
  }
  add(f, "Preconditioning", pre.empty() ? "none recorded" : pre);
  if (h.parameters.count("prewrite_rounds")) add(f, "Pre-write", prewrite_text(run));
  return f;
}

Facts steady_state_facts(const SteadyStateReport& s, const std::optional<MeasurementWindow>& window,
                         const std::string& subtest) {
  Facts f;
  if (!subtest.empty()) add(f, "Sub-test", subtest);
  const bool bw = s.tracked.front().variable != TrackedVariable::iops;
  auto level = [&](double v) { return bw ? bytes_per_second(v) : si(v) + " IOPS"; };
  add(f, "Steady state", s.verdict.reached ? "reached at round " + reached_round_text(s.verdict.round) : "not reached");
  add(f, "Tracked variable", or_dash(tracked_variable_name(s.tracked.front().variable)));
  if (const WindowCheck* w = window_of(s)) {
    add(f, "Window",
        "rounds " + pts_round(static_cast<double>(w->first)) + "–" + pts_round(static_cast<double>(w->last)));
    if (std::isfinite(w->average)) add(f, "Window average", level(w->average));
    if (std::isfinite(w->range)) add(f, "Range", level(w->range) + " (limit " + level(w->range_limit) + ")");
    if (std::isfinite(w->slope_excursion)) {
      add(f, "Fitted-line excursion", level(w->slope_excursion) + " (limit " + level(w->slope_excursion_limit) + ")");
    }
  }
  // Several tracked variables (the IOPS test's three): each one's verdict.
  if (s.tracked.size() > 1) {
    for (std::size_t i = 0; i < s.tracked.size(); ++i) {
      // A variable the verdict has no window for (a shorter series) is not steady.
      const WindowCheck* v = i < s.verdict.windows.size() ? &s.verdict.windows[i] : nullptr;
      const bool ok = v && v->range_ok && v->slope_ok;
      const double average = v ? v->average : kAbsent;
      add(f, "Tracked: " + or_dash(s.tracked[i].element),
          (ok ? "steady" : "not steady") + std::string(", window average ") +
              (s.tracked[i].variable == TrackedVariable::iops ? si(average) + " IOPS" : level(average)));
    }
  }
  if (const auto& m = window) {
    add(f, "Measurement window",
        "rounds " + pts_round(static_cast<double>(m->first)) + "–" + pts_round(static_cast<double>(m->last)) +
            (m->steady_state ? " (the steady-state window)" : " (steady state not reached: the last rounds)"));
  }
  return f;
}

Facts wear_facts(const RunRecord& run) {
  Facts f;
  const DriveResults* d = run.drive();
  if (!d) return f;
  if (std::isfinite(d->host_bytes_written)) add(f, "Host bytes written", bytes(d->host_bytes_written));
  // Present but not finite: a document that wrote null.
  const double drive_writes = d->drive_writes.value_or(kAbsent);
  const double dwpd_spent = d->dwpd_spent.value_or(kAbsent);
  if (std::isfinite(drive_writes)) add(f, "Drive writes", num(drive_writes, 3) + " × capacity");
  if (std::isfinite(dwpd_spent)) {
    std::string v = num(dwpd_spent, 2) + " drive writes per day at this run's pace";
    if (const auto rated = run.header.target.rated_dwpd; rated && *rated > 0) {
      v += " (" + num(100 * dwpd_spent / *rated, 0) + " % of the rated " + num(*rated, 2) + " DWPD)";
    }
    add(f, "DWPD spent", v);
  }
  if (const auto& lm = d->latency_monitor; lm && std::isfinite(lm->threshold_s)) {
    // Compared as printed: counts past 2^53 that print alike are one.
    const auto host_min = static_cast<double>(lm->host_ios_min);
    const auto host_max = static_cast<double>(lm->host_ios_max);
    const std::string host = host_min == host_max ? num(host_min, 0) : num(host_min, 0) + "–" + num(host_max, 0);
    add(f, "Drive latency monitor",
        "the drive saw " + num(static_cast<double>(lm->drive_ios), 0) + " I/Os over " + num(lm->threshold_s * 1000, 0) +
            " ms; the host saw " + host);
  }
  if (d->temperature_c) {
    add(f, "Temperature", num(d->temperature_c->first) + " – " + num(d->temperature_c->second) + " °C");
  }
  add(f, "Throttle events", std::to_string(d->throttle_events.size()));
  return f;
}

std::optional<Table> iops_matrix(const RunRecord& run) {
  std::map<double, std::map<double, double>, std::greater<>> cells;  // bs → read_pct → IOPS
  std::set<double, std::greater<>> mixes;
  if (run.results->elements) {
    for (const auto& e : *run.results->elements) {
      if (!std::isfinite(e.read_pct)) continue;
      cells[static_cast<double>(e.bs)][e.read_pct] = e.iops;
      mixes.insert(e.read_pct);
    }
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
  if (!run.results->elements || run.results->elements->empty()) return std::nullopt;
  Table t{"elements",
          "Throughput and latency per test element",
          {"Element", "Block size", "R/W", "Threads × QD", "Op", "IOPS", "Throughput", "Mean", "p99", "p99.9", "p99.99",
           "p99.999", "Max"},
          {}};
  for (const auto& e : *run.results->elements) {
    const std::string qd = num(static_cast<double>(e.threads), 0) + " × " + num(static_cast<double>(e.queue_depth), 0);
    for (const auto& [name, io] : {std::pair{"read", IoOp::read}, std::pair{"write", IoOp::write}}) {
      const OpSummary* op = op_of(e.ops, io);
      if (!op) continue;
      t.rows.push_back({or_dash(e.label), block_size(static_cast<double>(e.bs)), mix(e.read_pct), qd, name,
                        Cell(si(op->iops), "num"), Cell(bytes_per_second(op->bytes_per_second), "num"),
                        Cell(seconds(op->mean), "num"), Cell(seconds(op->p99), "num"), Cell(seconds(op->p999), "num"),
                        Cell(seconds(op->p9999), "num"), Cell(seconds(op->p99999.value_or(kAbsent)), "num"),
                        Cell(seconds(op->max), "num")});
    }
  }
  return t;
}

std::optional<Table> qos_table(const RunRecord& run) {
  const QosResults* qos = run.qos();
  if (!qos || qos->checks.empty()) return std::nullopt;
  Table t{"qos-checks",
          "Declared QoS against measured latency",
          {"Op", "Block size", "Quantile", "Limit", "Measured", "Verdict"},
          {}};
  for (const auto& c : qos->checks) {
    t.rows.push_back({or_dash(op_name(c.op)), block_size(static_cast<double>(c.bs)), "p" + num(c.quantile * 100, 3),
                      Cell(seconds(c.limit_s), "num"), Cell(seconds(c.measured_s.value_or(kAbsent)), "num"),
                      Cell(c.pass ? "pass" : "FAIL", c.pass ? "pass" : "fail")});
  }
  return t;
}

std::optional<Table> throttle_table(const RunRecord& run) {
  const DriveResults* drive = run.drive();
  if (!drive || drive->throttle_events.empty()) return std::nullopt;
  Table t{"throttle-events", "Thermal throttle events", {"Start", "End", "Duration", "Peak", "Sources"}, {}};
  for (const auto& e : drive->throttle_events) {
    std::string sources;
    for (const auto& s : e.sources) sources += (sources.empty() ? "" : ", ") + s;
    // NaN while it lasts (no end) or for a time that does not parse.
    const double d = run.offset(e.end) - run.offset(e.start);
    t.rows.push_back({or_dash(e.start), e.end.empty() ? "still throttling" : e.end,
                      Cell(std::isfinite(d) ? elapsed(d) : "–", "num"), Cell(num(e.peak_c) + " °C", "num"),
                      or_dash(sources)});
  }
  return t;
}

std::optional<Table> smart_table(const RunRecord& run) {
  // The health log is the header's, but a run without the drive section
  // never showed it.
  if (!run.drive()) return std::nullopt;
  const auto before = smart_fields(run.header.smart_before);
  const auto after = smart_fields(run.header.smart_after);
  if (before.empty() && after.empty()) return std::nullopt;
  Table t{"smart", "SMART / health log before and after the run", {"Field", "Before", "After"}, {}};
  std::vector<std::string> keys;
  for (const auto* side : {&before, &after}) {
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
    t.rows.push_back({k, Cell(find(before, k), "num"), Cell(find(after, k), "num")});
  }
  return t;
}

}  // namespace nvmond::report

namespace nvmond::report {

namespace {

double mean_of(const std::vector<const RoundRecord*>& rounds, double RoundRecord::*field, std::size_t last = 0) {
  double sum = 0;
  std::size_t n = 0;
  const std::size_t from = last > 0 && rounds.size() > last ? rounds.size() - last : 0;
  for (std::size_t i = from; i < rounds.size(); ++i) {
    if (std::isfinite(rounds[i]->*field)) sum += rounds[i]->*field, ++n;
  }
  return n > 0 ? sum / static_cast<double>(n) : kAbsent;
}

double peak_latency(const std::vector<const RoundRecord*>& rounds, double OpSummary::*field) {
  double peak = kAbsent;
  for (const RoundRecord* r : rounds) {
    const OpSummary* op = primary_op(r->ops);
    if (op && std::isfinite(op->*field) && !(peak >= op->*field)) peak = op->*field;
  }
  return peak;
}

std::string rate_text(double v, bool bandwidth) {
  if (!std::isfinite(v)) return "–";
  return bandwidth ? bytes_per_second(v) : si(v);
}

// HIR: a burst's IOPS as a multiple of the steady state's.
std::optional<Table> hir_table(const RunRecord& run, const std::vector<StageRounds>& stages) {
  const auto& ss = run.results->steady_state;
  const WindowCheck* window = ss ? window_of(*ss) : nullptr;
  const double steady = window && std::isfinite(window->average) ? window->average : kAbsent;
  Table t{"stage-table",
          "Mean IOPS of each segment's bursts; × steady state: against the steady state's average (" +
              rate_text(steady, false) + " IOPS)",
          {"Segment", "Bursts", "Mean IOPS", "× steady state"},
          {}};
  for (const auto& st : stages) {
    if (ss && static_cast<std::size_t>(st.stage) == ss->stage) continue;
    const double m = mean_of(st.rounds, &RoundRecord::iops);
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
std::optional<Table> xsr_table(const RunRecord& run, const std::vector<StageRounds>& stages) {
  constexpr std::size_t kFinal = 5;
  Table t{"stage-table",
          "Final: the mean of each group's last 5 rounds; recovery: access group 3's time to its first round at "
          "access group 1's final throughput",
          {"Access group", "Rounds", "Mean", "Final", "Mean RT peak", "Max RT peak", "Recovery"},
          {}};
  const double target =
      stages.empty() ? kAbsent : mean_of(stages.front().rounds, &RoundRecord::bytes_per_second, kFinal);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto& st = stages[i];
    std::string recovery = "–";
    if (i == 2 && std::isfinite(target)) {
      recovery = "not within the group";
      for (const RoundRecord* r : st.rounds) {
        if (r->bytes_per_second >= target) {
          recovery = elapsed(run.offset(*r) + r->seconds - run.offset(*st.rounds.front()));
          break;
        }
      }
    }
    t.rows.push_back({st.label,
                      {std::to_string(st.rounds.size()), "num"},
                      {rate_text(mean_of(st.rounds, &RoundRecord::bytes_per_second), true), "num"},
                      {rate_text(mean_of(st.rounds, &RoundRecord::bytes_per_second, kFinal), true), "num"},
                      {seconds(peak_latency(st.rounds, &OpSummary::mean)), "num"},
                      {seconds(peak_latency(st.rounds, &OpSummary::max)), "num"},
                      {recovery, "num"}});
  }
  if (t.rows.empty()) return std::nullopt;
  return t;
}

}  // namespace

std::optional<Table> stage_table(const RunRecord& run) {
  const auto kind = test_kind(run);
  if (kind == TestKind::hir) return hir_table(run, rounds_by_stage(run));
  if (kind == TestKind::xsr) return xsr_table(run, rounds_by_stage(run));
  return std::nullopt;
}

}  // namespace nvmond::report
