#include "daemon/control_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "pts/model/run_codec.hpp"
#include "pts/model/test_request.hpp"

namespace nvmond {
namespace {

using nlohmann::json;

json ok(json body = json::object()) {
  body["ok"] = true;
  return body;
}
json fail(const std::string& message) { return {{"ok", false}, {"error", message}}; }

std::optional<double> unix_seconds(std::optional<WallTime> t) {
  if (!t) return std::nullopt;
  return seconds(t->time_since_epoch());
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::int64_t run_id(const json& req) {
  if (!req.contains("run") || !req["run"].is_number_integer()) throw std::invalid_argument("\"run\": expected a run id");
  return req["run"].get<std::int64_t>();
}

// `from` (a round index, default 0) and `limit` (1..RoundPage::kMaxRounds,
// default the most) of a `show`.
RoundPage round_page(const json& req) {
  RoundPage page;
  if (req.contains("from")) {
    if (!req["from"].is_number_integer() || req["from"].get<std::int64_t>() < 0) {
      throw std::invalid_argument("\"from\": expected a round index (0 or more)");
    }
    page.from = req["from"].get<std::int64_t>();
  }
  if (req.contains("limit")) {
    const json& l = req["limit"];
    if (!l.is_number_integer() || l.get<std::int64_t>() < 1 ||
        l.get<std::int64_t>() > static_cast<std::int64_t>(RoundPage::kMaxRounds)) {
      throw std::invalid_argument(fmt::format("\"limit\": expected 1 to {} rounds", RoundPage::kMaxRounds));
    }
    page.limit = l.get<std::size_t>();
  }
  return page;
}

json drive_json(const DriveSummary& d) {
  return {{"serial", d.serial},         {"model", d.model},
          {"path", d.path},             {"up", d.up},
          {"composite_c", opt(d.composite_c)}, {"warning_c", opt(d.warning_c)},
          {"percentage_used", opt(d.percentage_used)}, {"critical_warnings", d.critical_warnings},
          {"throttling", d.throttling}};
}

json schedule_json(const ScheduleView& s) {
  return {{"name", s.name},     {"test", s.test},     {"target", s.target},
          {"schedule", s.schedule}, {"state", std::string(to_text(s.state))}, {"detail", s.detail},
          {"next_start", opt(unix_seconds(s.next_start))}, {"run", opt(s.run)}};
}

json status(ControlContext& ctx) {
  json drives = json::array(), runs = json::array();
  for (const auto& d : ctx.drives()) drives.push_back(drive_json(d));
  for (const auto& r : ctx.soaks.active()) runs.push_back(to_json(r));
  json queued = json::array();
  for (const auto& s : ctx.scheduler.list()) {
    if (s.state == ScheduleState::queued || s.state == ScheduleState::waiting_cool) queued.push_back(schedule_json(s));
  }
  return ok({{"drives", drives}, {"runs", runs}, {"queued", queued}});
}

// What a control client may send in a start request: strings that end up in
// log lines, run.json and error messages are printable and bounded, so no
// client forges a log line or fills the log. (The run's name is the
// daemon's own: "manual-<UTC time>".)
constexpr std::size_t kMaxTarget = 4096;  // PATH_MAX
constexpr std::size_t kMaxParams = 64;
constexpr std::size_t kMaxParamKey = 64;
constexpr std::size_t kMaxParamValue = 1024;

bool printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

std::optional<std::string> field_problem(const std::string& what, const std::string& value, std::size_t max) {
  if (value.empty() || value.size() > max) return fmt::format("{}: must be 1 to {} characters", what, max);
  if (!printable(value)) return what + ": must be printable ASCII (no newline or control character)";
  return std::nullopt;
}

json start(const json& req, ControlContext& ctx) {
  SoakRequest r;
  if (!req.contains("test") || !req["test"].is_string()) return fail("\"test\": expected a test name");
  if (!req.contains("target") || !req["target"].is_string()) return fail("\"target\": expected a target");
  r.test = req["test"];
  r.target = req["target"];
  if (auto p = field_problem("\"test\"", r.test, kMaxParamKey)) return fail(*p);
  if (auto p = field_problem("\"target\"", r.target, kMaxTarget)) return fail(*p);
  if (req.contains("params")) {
    if (!req["params"].is_object()) return fail("\"params\": expected an object of strings");
    if (req["params"].size() > kMaxParams) return fail(fmt::format("\"params\": at most {} parameters", kMaxParams));
    for (const auto& [k, v] : req["params"].items()) {
      if (auto p = field_problem("\"params\": a parameter name", k, kMaxParamKey)) return fail(*p);
      if (!v.is_string()) return fail("\"params\": " + k + " must be a string");
      if (auto p = field_problem("\"params\": " + k, v.get<std::string>(), kMaxParamValue)) return fail(*p);
      r.params[k] = v.get<std::string>();
    }
  }
  try {
    validate(r.test, r.params);
  } catch (const ParamError& e) {
    return fail(fmt::format("{} on {}: {}", r.test, r.target, e.what()));
  }
  const std::string name = ctx.scheduler.request(r, ctx.clock.wall());
  ctx.tick();
  for (const auto& s : ctx.scheduler.list()) {
    if (s.name != name) continue;
    if (s.state == ScheduleState::failed) return fail(s.detail);
    if (s.run) return ok({{"name", name}, {"run", *s.run}, {"queued", false}});
    return ok({{"name", name}, {"queued", true}, {"detail", s.detail}});
  }
  return fail("run " + name + " ended before it could be reported");
}

json pause_resume(const json& req, ControlContext& ctx, bool pause) {
  std::vector<std::int64_t> ids;
  if (req.contains("run")) ids.push_back(run_id(req));
  else
    for (const auto& r : ctx.soaks.active()) ids.push_back(r.id);
  if (ids.empty()) return fail("no run in progress");
  json done = json::array();
  for (auto id : ids) {
    auto r = pause ? ctx.soaks.pause(id) : ctx.soaks.resume(id);
    if (!r) return fail(r.error().message);
    ctx.scheduler.operator_paused(id, pause);
    done.push_back(id);
  }
  return ok({{"runs", done}});
}

}  // namespace

json to_json(const RunView& r) { return run_view_json(r); }

json handle_control(const json& req, ControlContext& ctx) {
  const std::string cmd = req["cmd"];
  if (cmd == "ping") return ok();
  if (cmd == "status") return status(ctx);
  if (cmd == "list") {
    json out = json::array();
    for (const auto& s : ctx.scheduler.list()) out.push_back(schedule_json(s));
    return ok({{"schedules", out}});
  }
  if (cmd == "start") return start(req, ctx);
  if (cmd == "stop") {
    auto r = ctx.soaks.stop(run_id(req));
    if (!r) return fail(r.error().message);
    ctx.tick();
    return ok({{"run", run_id(req)}});
  }
  if (cmd == "pause" || cmd == "resume") return pause_resume(req, ctx, cmd == "pause");
  if (cmd == "history") {
    std::optional<std::string> serial;
    if (req.contains("drive")) {
      if (!req["drive"].is_string()) return fail("\"drive\": expected a serial");
      serial = req["drive"].get<std::string>();
    }
    auto h = ctx.soaks.history(serial);
    if (!h) return fail(h.error().message);
    json runs = json::array();
    for (const auto& r : *h) runs.push_back(to_json(r));
    return ok({{"runs", runs}});
  }
  if (cmd == "show") {
    auto d = ctx.soaks.show(run_id(req), round_page(req));
    if (!d) return fail(d.error().message);
    json rounds = json::array();
    for (const auto& r : d->rounds) {
      json data = json::parse(r.data, nullptr, false);
      rounds.push_back({{"index", r.index}, {"phase", r.phase}, {"iops", r.iops}, {"data", data.is_discarded() ? json(r.data) : data}});
    }
    return ok({{"run", to_json(d->run)}, {"rounds", rounds}, {"next", opt(d->next_round)}});
  }
  return fail("unknown command \"" + cmd + "\"");
}

}  // namespace nvmond
