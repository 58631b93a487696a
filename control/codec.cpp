#include "control/codec.hpp"

#include <fmt/format.h>

#include <type_traits>

#include "control/framing.hpp"
#include "core/json_path.hpp"
#include "core/result.hpp"
#include "runmodel/run_codec.hpp"

namespace nvmond::control {
namespace {

using nlohmann::json;

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

using json_keys::array_of;
using json_keys::bad;
using json_keys::bool_of;
using json_keys::integer_of;
using json_keys::integer_or_null;
using json_keys::need;
using json_keys::number_or_null;
using json_keys::string_of;

// Where a key of an element sits, for the error: "runs[2].status".
json element(const json& arr, std::size_t i, const std::string& where) {
  if (!arr[i].is_object()) bad(fmt::format("{}[{}]", where, i), "an object");
  return arr[i];
}

template <typename T, typename F>
std::vector<T> list_of(const json& j, const std::string& key, F decode_one) {
  std::vector<T> out;
  const json& arr = array_of(j, key);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", key, i);
    try {
      out.push_back(decode_one(element(arr, i, key)));
    } catch (const DecodeError& e) {
      // "status": ... becomes "runs[0].status": ...
      const std::string what = e.what();
      throw DecodeError(what.rfind("\"", 0) == 0 ? "\"" + where + "." + what.substr(1) : what);
    }
  }
  return out;
}

Run decode_run(const json& j) {
  auto r = run_view_from_json(j);
  if (!r) throw DecodeError(r.error().message);
  return *r;
}

Drive decode_drive(const json& j) {
  Drive d;
  d.serial = string_of(j, "serial", "a string");
  d.model = string_of(j, "model", "a string");
  d.path = string_of(j, "path", "a string");
  d.up = bool_of(j, "up");
  d.composite_c = number_or_null(j, "composite_c");
  d.warning_c = number_or_null(j, "warning_c");
  d.percentage_used = number_or_null(j, "percentage_used");
  for (const auto& w : array_of(j, "critical_warnings")) {
    if (!w.is_string()) bad("critical_warnings", "an array of strings");
    d.critical_warnings.push_back(w.get<std::string>());
  }
  d.throttling = bool_of(j, "throttling");
  if (j.contains("link_degraded")) d.link_degraded = bool_of(j, "link_degraded");
  if (auto n = integer_or_null(j, "media_path_errors", "a count or null")) {
    if (*n < 0) bad("media_path_errors", "a count or null");
    d.media_path_errors = static_cast<std::uint64_t>(*n);
  }
  if (j.contains("conditions")) {
    for (const auto& c : array_of(j, "conditions")) {
      if (!c.is_string()) bad("conditions", "an array of strings");
      d.conditions.push_back(c.get<std::string>());
    }
  }
  return d;
}

Schedule decode_schedule(const json& j) {
  Schedule s;
  s.name = string_of(j, "name", "a string");
  s.test = string_of(j, "test", "a string");
  s.target = string_of(j, "target", "a string");
  s.schedule = string_of(j, "schedule", "a string");
  auto state = schedule_state_from_text(string_of(j, "state", "a string"));
  if (!state) bad("state", "a schedule state");
  s.state = *state;
  s.detail = string_of(j, "detail", "a string");
  s.next_start = number_or_null(j, "next_start");
  s.run = integer_or_null(j, "run", "a run id or null");
  return s;
}

Round decode_round(const json& j) {
  Round r;
  r.index = integer_of(j, "index", "a round index");
  r.phase = string_of(j, "phase", "a string");
  r.iops = number_or_null(j, "iops");
  r.data = round_from_json(json_keys::Path{need(j, "data", "the round's data"), "data"});
  return r;
}

std::vector<std::int64_t> ids_of(const json& j, const std::string& key) {
  std::vector<std::int64_t> out;
  for (const auto& v : array_of(j, key)) {
    if (!v.is_number_integer()) bad(key, "an array of run ids");
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

json ok(json body) {
  body["ok"] = true;
  body["protocol"] = kProtocolVersion;
  return body;
}

std::string versions_spoken() {
  return kOldestProtocol == kProtocolVersion ? fmt::format("version {}", kProtocolVersion)
                                             : fmt::format("versions {} to {}", kOldestProtocol, kProtocolVersion);
}

bool spoken(std::int64_t v) { return v >= kOldestProtocol && v <= kProtocolVersion; }

std::int64_t version_of(const json& j) {
  if (!j.contains("protocol")) return 1;  // from before versions were sent
  return integer_of(j, "protocol", "a protocol version (an integer)");
}

// "run": ID, or "all": true; never both, never neither.
RunSelector run_selector(const json& j) {
  if (j.contains("all")) {
    if (j.contains("run")) throw DecodeError("\"run\" and \"all\": name one run, or all of them, not both");
    if (!bool_of(j, "all")) bad("all", "true (every run in progress); name one run with \"run\" instead");
    return AllRuns{};
  }
  return integer_of(j, "run", "a run id");
}

void encode_selector(const RunSelector& which, json& j) {
  if (std::holds_alternative<AllRuns>(which)) j["all"] = true;
  else j["run"] = std::get<std::int64_t>(which);
}

ShowRequest decode_show(const json& j) {
  ShowRequest r;
  r.run = integer_of(j, "run", "a run id");
  if (j.contains("from")) {
    const json& f = j["from"];
    if (!f.is_number_integer() || f.get<std::int64_t>() < 0) bad("from", "a round index (0 or more)");
    r.from = f.get<std::int64_t>();
  }
  if (j.contains("limit")) {
    const json& l = j["limit"];
    if (!l.is_number_integer() || l.get<std::int64_t>() < 1 || l.get<std::int64_t>() > kMaxShowRounds) {
      bad("limit", fmt::format("1 to {} rounds", kMaxShowRounds));
    }
    r.limit = l.get<std::int64_t>();
  }
  return r;
}

StartRequest decode_start(const json& j) {
  StartRequest r;
  r.test = string_of(j, "test", "a test name");
  r.target = string_of(j, "target", "a target");
  if (j.contains("profile")) r.profile = string_of(j, "profile", "a profile name");
  if (j.contains("params")) {
    const json& p = j["params"];
    if (!p.is_object()) bad("params", "an object of strings");
    for (const auto& [k, v] : p.items()) {
      if (!v.is_string()) throw DecodeError("\"params\": " + k + " must be a string");
      r.params[k] = v.get<std::string>();
    }
  }
  return r;
}

constexpr const char* kSelfTestActions = "\"start\", \"abort\" or \"status\"";

const char* action_text(SelfTestAction a) {
  switch (a) {
    case SelfTestAction::start: return "start";
    case SelfTestAction::abort: return "abort";
    case SelfTestAction::status: return "status";
  }
  return "status";
}

SelfTestRequest decode_self_test(const json& j) {
  SelfTestRequest r;
  const std::string action = string_of(j, "action", kSelfTestActions);
  if (action == "start") r.action = SelfTestAction::start;
  else if (action == "abort") r.action = SelfTestAction::abort;
  else if (action == "status") r.action = SelfTestAction::status;
  else bad("action", kSelfTestActions);
  r.drive = string_of(j, "drive", "a serial");
  if (j.contains("extended")) r.extended = bool_of(j, "extended");
  return r;
}

SelfTestEntry decode_self_test_entry(const json& j) {
  SelfTestEntry e;
  e.kind = string_of(j, "kind", "a string");
  e.result = string_of(j, "result", "a string");
  e.segment = integer_or_null(j, "segment", "a segment number or null");
  e.power_on_hours = integer_of(j, "power_on_hours", "hours");
  return e;
}

}  // namespace

std::string command_of(const Request& r) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, PingRequest>) return "ping";
        else if constexpr (std::is_same_v<T, StatusRequest>) return "status";
        else if constexpr (std::is_same_v<T, ListRequest>) return "list";
        else if constexpr (std::is_same_v<T, StartRequest>) return "start";
        else if constexpr (std::is_same_v<T, StopRequest>) return "stop";
        else if constexpr (std::is_same_v<T, PauseRequest>) return "pause";
        else if constexpr (std::is_same_v<T, ResumeRequest>) return "resume";
        else if constexpr (std::is_same_v<T, HistoryRequest>) return "history";
        else if constexpr (std::is_same_v<T, SelfTestRequest>) return "selftest";
        else return "show";
      },
      r);
}

json encode(const Request& r) {
  json j{{"cmd", command_of(r)}, {"protocol", kProtocolVersion}};
  std::visit(
      [&j](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, StartRequest>) {
          j["test"] = x.test;
          j["target"] = x.target;
          j["params"] = x.params;
          if (!x.profile.empty()) j["profile"] = x.profile;
        } else if constexpr (std::is_same_v<T, StopRequest> || std::is_same_v<T, PauseRequest> ||
                             std::is_same_v<T, ResumeRequest>) {
          encode_selector(x.which, j);
        } else if constexpr (std::is_same_v<T, HistoryRequest>) {
          if (x.drive) j["drive"] = *x.drive;
        } else if constexpr (std::is_same_v<T, SelfTestRequest>) {
          j["action"] = action_text(x.action);
          j["drive"] = x.drive;
          if (x.extended) j["extended"] = true;
        } else if constexpr (std::is_same_v<T, ShowRequest>) {
          j["run"] = x.run;
          if (x.from) j["from"] = *x.from;
          if (x.limit) j["limit"] = *x.limit;
        }
      },
      r);
  return j;
}

Request decode_request(const json& j) {
  if (!j.is_object()) throw DecodeError("malformed request: expected an object with a string \"cmd\"");
  const std::int64_t version = version_of(j);
  if (!spoken(version)) {
    throw ProtocolVersionError(
        fmt::format("control protocol {} is not spoken by this nvmond, which speaks {}: upgrade nvmond, "
                    "or use the nvmonctl that came with it",
                    version, versions_spoken()));
  }
  const std::string cmd = string_of(j, "cmd", "a command name");
  if (cmd == "ping") return PingRequest{};
  if (cmd == "status") return StatusRequest{};
  if (cmd == "list") return ListRequest{};
  if (cmd == "start") return decode_start(j);
  if (cmd == "stop") return StopRequest{run_selector(j)};
  if (cmd == "pause") return PauseRequest{run_selector(j)};
  if (cmd == "resume") return ResumeRequest{run_selector(j)};
  if (cmd == "history") {
    HistoryRequest r;
    if (j.contains("drive")) r.drive = string_of(j, "drive", "a serial");
    return r;
  }
  if (cmd == "show") return decode_show(j);
  if (cmd == "selftest") return decode_self_test(j);
  throw DecodeError("unknown command \"" + cmd + "\"");
}

json encode(const Run& r) { return run_view_json(r); }

json encode(const Drive& d) {
  return {{"serial", d.serial},
          {"model", d.model},
          {"path", d.path},
          {"up", d.up},
          {"composite_c", opt(d.composite_c)},
          {"warning_c", opt(d.warning_c)},
          {"percentage_used", opt(d.percentage_used)},
          {"critical_warnings", d.critical_warnings},
          {"throttling", d.throttling},
          {"link_degraded", d.link_degraded},
          {"media_path_errors", opt(d.media_path_errors)},
          {"conditions", d.conditions}};
}

json encode(const Schedule& s) {
  return {{"name", s.name},
          {"test", s.test},
          {"target", s.target},
          {"schedule", s.schedule},
          {"state", std::string(to_text(s.state))},
          {"detail", s.detail},
          {"next_start", opt(s.next_start)},
          {"run", opt(s.run)}};
}

json encode(const Round& r) {
  return {{"index", r.index}, {"phase", r.phase}, {"iops", opt(r.iops)}, {"data", to_json(r.data)}};
}

json encode(const SelfTestEntry& e) {
  return {{"kind", e.kind}, {"result", e.result}, {"segment", opt(e.segment)}, {"power_on_hours", e.power_on_hours}};
}

namespace {
template <typename T>
json array(const std::vector<T>& items) {
  json out = json::array();
  for (const auto& x : items) out.push_back(encode(x));
  return out;
}
}  // namespace

json encode(const PingReply&) { return ok(json::object()); }
json encode(const StatusReply& r) {
  return ok({{"drives", array(r.drives)}, {"runs", array(r.runs)}, {"queued", array(r.queued)}});
}
json encode(const ListReply& r) { return ok({{"schedules", array(r.schedules)}}); }
json encode(const StartReply& r) {
  json body{{"name", r.name}, {"queued", r.queued}};
  if (r.run) body["run"] = *r.run;
  if (r.detail) body["detail"] = *r.detail;
  return ok(body);
}
json encode(const StopReply& r) {
  json body{{"runs", r.runs}};
  // A stop of one run also answers as it always did, for an older nvmonctl.
  if (r.runs.size() == 1) body["run"] = r.runs.front();
  return ok(body);
}
json encode(const RunsActedOn& r) { return ok({{"runs", r.runs}}); }
json encode(const HistoryReply& r) { return ok({{"runs", array(r.runs)}}); }
json encode(const ShowReply& r) {
  return ok({{"run", encode(r.run)}, {"rounds", array(r.rounds)}, {"next", opt(r.next)}});
}
json encode(const SelfTestReply& r) {
  return ok({{"drive", r.drive},
             {"done", r.done},
             {"log_read", r.log_read},
             {"running", opt(r.running)},
             {"completion_pct", opt(r.completion_pct)},
             {"results", array(r.results)}});
}
json encode(const ErrorReply& r) {
  json j = {{"ok", false}, {"error", r.error}, {"protocol", kProtocolVersion}};
  if (r.reason) j["reason"] = std::string(to_text(*r.reason));
  return j;
}

json encode(const AnyReply& r) {
  return std::visit([](const auto& reply) { return encode(reply); }, r);
}

std::optional<ErrorReason> reason_of(const std::exception& e) {
  if (dynamic_cast<const ProtocolVersionError*>(&e) != nullptr) return ErrorReason::protocol_version;
  if (dynamic_cast<const DecodeError*>(&e) != nullptr) return ErrorReason::decode;
  return std::nullopt;
}

std::variant<Request, ErrorReply> read_request_line(const std::string& line) {
  const json req = unframe(line);
  if (req.is_discarded()) return ErrorReply{"malformed request: not JSON", ErrorReason::decode};
  if (!req.is_object() || !req.contains("cmd") || !req["cmd"].is_string()) {
    return ErrorReply{"malformed request: expected an object with a string \"cmd\"", ErrorReason::decode};
  }
  try {
    return decode_request(req);
  } catch (const std::exception& e) {
    return ErrorReply{e.what(), reason_of(e)};
  }
}

std::string reply_line(const AnyReply& r) { return frame(encode(r)); }

void check_reply_version(const json& j) {
  if (!j.is_object()) throw DecodeError("expected a reply object");
  const std::int64_t version = version_of(j);
  if (!spoken(version)) {
    throw ProtocolVersionError(
        fmt::format("the daemon answered in control protocol {}, and this nvmonctl speaks {}: upgrade nvmonctl, "
                    "or use the one that came with nvmond",
                    version, versions_spoken()));
  }
}

bool reply_ok(const json& j) {
  check_reply_version(j);
  return bool_of(j, "ok");
}

ErrorReply decode_error_reply(const json& j) {
  check_reply_version(j);
  ErrorReply r{j.contains("error") ? string_of(j, "error", "a message") : "request refused"};
  // A reason this nvmonctl does not know (a newer daemon's) leaves it a
  // plain refusal: the sentence still says what happened.
  if (j.contains("reason")) {
    if (auto reason = error_reason_from_text(string_of(j, "reason", "a reason"))) r.reason = *reason;
  }
  return r;
}

template <>
PingReply decode_reply<PingReply>(const json& j) {
  check_reply_version(j);
  return {};
}
template <>
StatusReply decode_reply<StatusReply>(const json& j) {
  check_reply_version(j);
  return {list_of<Drive>(j, "drives", decode_drive), list_of<Run>(j, "runs", decode_run),
          list_of<Schedule>(j, "queued", decode_schedule)};
}
template <>
ListReply decode_reply<ListReply>(const json& j) {
  check_reply_version(j);
  return {list_of<Schedule>(j, "schedules", decode_schedule)};
}
template <>
StartReply decode_reply<StartReply>(const json& j) {
  check_reply_version(j);
  StartReply r;
  r.name = string_of(j, "name", "a run name");
  r.queued = bool_of(j, "queued");
  if (r.queued) r.detail = string_of(j, "detail", "why the run waits");
  else r.run = integer_of(j, "run", "a run id");
  return r;
}
template <>
StopReply decode_reply<StopReply>(const json& j) {
  check_reply_version(j);
  // An older nvmond answers a stop with "run" alone.
  if (!j.contains("runs")) return {{integer_of(j, "run", "a run id")}};
  return {ids_of(j, "runs")};
}
template <>
RunsActedOn decode_reply<RunsActedOn>(const json& j) {
  check_reply_version(j);
  return {ids_of(j, "runs")};
}
template <>
HistoryReply decode_reply<HistoryReply>(const json& j) {
  check_reply_version(j);
  return {list_of<Run>(j, "runs", decode_run)};
}
template <>
ShowReply decode_reply<ShowReply>(const json& j) {
  check_reply_version(j);
  ShowReply r;
  const json& run = need(j, "run", "a run");
  if (!run.is_object()) bad("run", "a run");
  try {
    r.run = decode_run(run);
  } catch (const DecodeError& e) {
    const std::string what = e.what();
    throw DecodeError(what.rfind("\"", 0) == 0 ? "\"run." + what.substr(1) : what);
  }
  r.rounds = list_of<Round>(j, "rounds", decode_round);
  r.next = integer_or_null(j, "next", "a round index or null");
  return r;
}

template <>
SelfTestReply decode_reply<SelfTestReply>(const json& j) {
  check_reply_version(j);
  SelfTestReply r;
  r.drive = string_of(j, "drive", "a serial");
  r.done = string_of(j, "done", "a string");
  r.log_read = bool_of(j, "log_read");
  if (!need(j, "running", "a test kind or null").is_null()) r.running = string_of(j, "running", "a test kind or null");
  r.completion_pct = integer_or_null(j, "completion_pct", "a percentage or null");
  r.results = list_of<SelfTestEntry>(j, "results", decode_self_test_entry);
  return r;
}

}  // namespace nvmond::control
