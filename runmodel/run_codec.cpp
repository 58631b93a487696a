#include "runmodel/run_codec.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "core/json_fields.hpp"
#include "core/json_keys.hpp"
#include "core/json_path.hpp"
#include "runmodel/stage_phase.hpp"
#include "runmodel/tracked_variable.hpp"

namespace nvmond {

using nlohmann::json;

namespace {

constexpr const char* kSimulatedClock = "simulated";
constexpr const char* kSystemClock = "system";

// One table per object for the fields every record has; the optional ones
// are written only when known, as run.json always did.
constexpr auto kTargetFields = std::tuple{JsonField{"path", &TargetRecord::path},
                                          JsonField{"serial", &TargetRecord::serial},
                                          JsonField{"model", &TargetRecord::model},
                                          JsonField{"firmware", &TargetRecord::firmware},
                                          JsonField{"capacity_bytes", &TargetRecord::capacity_bytes},
                                          JsonField{"tested_range_bytes", &TargetRecord::tested_range_bytes}};
constexpr auto kTargetOptional = std::tuple{JsonField{"rated_dwpd", &TargetRecord::rated_dwpd},
                                            JsonField{"rated_endurance_bytes", &TargetRecord::rated_endurance_bytes},
                                            JsonField{"warning_temp_c", &TargetRecord::warning_temp_c},
                                            JsonField{"critical_temp_c", &TargetRecord::critical_temp_c}};
// Unknown (0) is left out, so that a run on a file or a simulated drive,
// and every run recorded before it was kept, reads and writes as before.
constexpr const char* kLogicalBlockBytes = "logical_block_bytes";
constexpr auto kSmartOptional =
    std::tuple{JsonField{"temperature_c", &SmartRecord::temperature_c},
               JsonField{"data_units_written", &SmartRecord::data_units_written},
               JsonField{"percentage_used", &SmartRecord::percentage_used},
               JsonField{"thermal_mgmt_t1_transitions", &SmartRecord::thermal_mgmt_t1_transitions},
               JsonField{"latency_monitor_threshold_s", &SmartRecord::latency_monitor_threshold_s},
               JsonField{"latency_monitor_reads", &SmartRecord::latency_monitor_reads},
               JsonField{"latency_monitor_writes", &SmartRecord::latency_monitor_writes}};
constexpr auto kConditionFields =
    std::tuple{JsonField{"name", &RunCondition::name}, JsonField{"detail", &RunCondition::detail}};
constexpr auto kWriteCacheFields = std::tuple{JsonField{"detail", &WriteCacheRecord::detail}};
constexpr auto kWriteCacheOptional =
    std::tuple{JsonField{"found", &WriteCacheRecord::found}, JsonField{"during", &WriteCacheRecord::during},
               JsonField{"restored_at", &WriteCacheRecord::restored_at},
               JsonField{"restore_failure", &WriteCacheRecord::restore_failure}};
constexpr auto kPurgeFields =
    std::tuple{JsonField{"method", &PurgeRecord::method}, JsonField{"detail", &PurgeRecord::detail}};

constexpr auto kElementFacts = std::tuple{JsonField{"label", &ElementFacts::label},
                                          JsonField{"bs", &ElementFacts::bs},
                                          JsonField{"read_pct", &ElementFacts::read_pct},
                                          JsonField{"threads", &ElementFacts::threads},
                                          JsonField{"queue_depth", &ElementFacts::queue_depth},
                                          JsonField{"range_fraction", &ElementFacts::range_fraction}};
constexpr auto kSteadyStateRule = std::tuple{
    JsonField{"window", &SteadyStateRule::window}, JsonField{"range_limit", &SteadyStateRule::range_limit},
    JsonField{"slope_limit", &SteadyStateRule::slope_limit}, JsonField{"max_rounds", &SteadyStateRule::max_rounds}};
constexpr auto kSteadyStateFacts = std::tuple{JsonField{"stop_when_reached", &SteadyStateFacts::stop_when_reached}};
constexpr auto kSlcFacts =
    std::tuple{JsonField{"drop_fraction", &SlcFacts::drop_fraction}, JsonField{"drop_rounds", &SlcFacts::drop_rounds}};
constexpr auto kStageFacts = std::tuple{JsonField{"kind", &StageFacts::kind},
                                        JsonField{"label", &StageFacts::label},
                                        JsonField{"group", &StageFacts::group},
                                        JsonField{"max_rounds", &StageFacts::max_rounds},
                                        JsonField{"iops_point_histograms", &StageFacts::iops_point_histograms},
                                        JsonField{"preconditions", &StageFacts::preconditions}};
constexpr auto kQosFacts =
    std::tuple{JsonField{"bs", &QosFacts::bs}, JsonField{"quantile", &QosFacts::quantile},
               JsonField{"limit_seconds", &QosFacts::limit_seconds}, JsonField{"element", &QosFacts::element}};

template <typename Record, typename Fields>
void write_optional(json& j, const Record& r, const Fields& fields) {
  std::apply([&](const auto&... f) { ((r.*f.member ? void(j[f.key] = *(r.*f.member)) : void()), ...); }, fields);
}

// Errors name the field ("target.capacity_bytes: expected an unsigned
// integer") in the store's log and in the report alike.
using At = json_keys::Path;

template <typename Record, typename Fields>
void read_fields_at(const At& a, Record& r, const Fields& fields) {
  std::apply(
      [&](const auto&... f) {
        ((r.*f.member = a.at(f.key).template as<std::remove_cvref_t<decltype(r.*f.member)>>()), ...);
      },
      fields);
}

template <typename Record, typename Fields>
void read_optional_at(const At& a, Record& r, const Fields& fields) {
  std::apply(
      [&](const auto&... f) {
        ((a.has(f.key)
              ? void(r.*f.member =
                         a.at(f.key).template as<typename std::remove_reference_t<decltype(r.*f.member)>::value_type>())
              : void()),
         ...);
      },
      fields);
}

json smart_json(const SmartRecord& s) {
  json j = {{"time", s.time}};
  write_optional(j, s, kSmartOptional);
  return j;
}

SmartRecord smart_from_json(const At& a) {
  SmartRecord s;
  s.time = a.at("time").as<std::string>();
  read_optional_at(a, s, kSmartOptional);
  return s;
}

json purge_json(const PurgeRecord& p) {
  json j = json::object();
  write_fields(j, p, kPurgeFields);
  return j;
}

PurgeRecord purge_from_json(const At& a) {
  PurgeRecord p;
  read_fields_at(a, p, kPurgeFields);
  return p;
}

json plan_json(const PlanRecord& plan) {
  json stages = json::array();
  for (const StageFacts& st : plan.stages) {
    json one = {{"phase", phase_name(st.phase)}};
    write_fields(one, st, kStageFacts);
    json elements = json::array();
    for (const ElementFacts& e : st.elements) {
      json ej = json::object();
      write_fields(ej, e, kElementFacts);
      elements.push_back(ej);
    }
    one["elements"] = elements;
    if (st.steady_state) {
      json ss = json::object();
      write_fields(ss, st.steady_state->rule, kSteadyStateRule);
      write_fields(ss, *st.steady_state, kSteadyStateFacts);
      json tracked = json::array();
      for (const TrackedFacts& t : st.steady_state->tracked) {
        tracked.push_back({{"element", t.element}, {"variable", tracked_variable_name(t.variable)}});
      }
      ss["tracked"] = tracked;
      one["steady_state"] = ss;
    }
    if (st.slc) {
      json slc = json::object();
      write_fields(slc, *st.slc, kSlcFacts);
      one["slc"] = slc;
    }
    if (st.points_of) one["points_of"] = *st.points_of;
    stages.push_back(one);
  }
  json qos = json::array();
  for (const QosFacts& q : plan.qos) {
    json one = {{"op", op_name(q.op)}};
    write_fields(one, q, kQosFacts);
    qos.push_back(one);
  }
  return {{"stages", stages}, {"qos", qos}, {"compare_label", plan.compare_label}};
}

PlanRecord plan_from_json(const At& a) {
  PlanRecord plan;
  const At stages = a.at("stages");
  for (std::size_t i = 0; i < stages.array().size(); ++i) {
    const At sa = stages.at(i);
    StageFacts st;
    const At phase = sa.at("phase");
    const auto parsed = phase_from_name(phase.as<std::string>());
    if (!parsed) phase.fail("no phase");
    st.phase = *parsed;
    read_fields_at(sa, st, kStageFacts);
    const At elements = sa.at("elements");
    for (std::size_t k = 0; k < elements.array().size(); ++k) {
      ElementFacts e;
      read_fields_at(elements.at(k), e, kElementFacts);
      st.elements.push_back(std::move(e));
    }
    if (sa.has("steady_state")) {
      const At ssa = sa.at("steady_state");
      SteadyStateFacts ss;
      read_fields_at(ssa, ss.rule, kSteadyStateRule);
      read_fields_at(ssa, ss, kSteadyStateFacts);
      const At tracked = ssa.at("tracked");
      for (std::size_t k = 0; k < tracked.array().size(); ++k) {
        const At ta = tracked.at(k);
        const At variable = ta.at("variable");
        const auto v = tracked_variable_from_name(variable.as<std::string>());
        if (!v) variable.fail("no tracked variable");
        ss.tracked.push_back({ta.at("element").as<std::size_t>(), *v});
      }
      st.steady_state = std::move(ss);
    }
    if (sa.has("slc")) {
      SlcFacts slc;
      read_fields_at(sa.at("slc"), slc, kSlcFacts);
      st.slc = slc;
    }
    if (sa.has("points_of")) st.points_of = sa.at("points_of").as<std::size_t>();
    plan.stages.push_back(std::move(st));
  }
  const At qos = a.at("qos");
  for (std::size_t i = 0; i < qos.array().size(); ++i) {
    const At qa = qos.at(i);
    QosFacts q;
    const At op = qa.at("op");
    const std::string op_text = op.as<std::string>();
    if (op_text != op_name(IoOp::read) && op_text != op_name(IoOp::write)) op.fail("neither read nor write");
    q.op = op_text == op_name(IoOp::read) ? IoOp::read : IoOp::write;
    read_fields_at(qa, q, kQosFacts);
    plan.qos.push_back(q);
  }
  plan.compare_label = a.at("compare_label").as<std::string>();
  return plan;
}

std::int64_t run_id_from_json(const At& a) {
  const std::string text = a.as<std::string>();
  if (text.empty()) return 0;
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end != text.data() + text.size() || id <= 0) {
    a.fail(fmt::format("\"{}\" is no run id", text));
  }
  return id;
}

RunHeader decode_header(const json& j) {
  const At root{j, ""};
  if (!j.is_object()) root.fail("expected an object");
  RunHeader h;
  h.schema = root.at("schema").as<std::string>();
  if (root.has("run_id")) h.run_id = run_id_from_json(root.at("run_id"));
  h.test = root.at("test").as<std::string>();
  if (root.has("profile")) {
    const At profile = root.at("profile");
    const std::string name = profile.as<std::string>();
    h.profile = profile_from_name(name);
    if (!h.profile) profile.fail(fmt::format("\"{}\" is no profile", name));
  }
  h.started_at = root.at("started_at").as<std::string>();
  h.started_ns = root.at("started_ns").as<std::int64_t>();
  h.nvmond_version = root.at("nvmond_version").as<std::string>();
  const At clock = root.at("clock");
  const std::string clock_text = clock.as<std::string>();
  if (clock_text != kSimulatedClock && clock_text != kSystemClock) {
    clock.fail(fmt::format("\"{}\" is neither {} nor {}", clock_text, kSimulatedClock, kSystemClock));
  }
  h.simulated_clock = clock_text == kSimulatedClock;
  const At target = root.at("target");
  read_fields_at(target, h.target, kTargetFields);
  read_optional_at(target, h.target, kTargetOptional);
  if (target.has(kLogicalBlockBytes)) {
    h.target.logical_block_bytes = target.at(kLogicalBlockBytes).as<std::uint32_t>();
  }
  const At parameters = root.at("parameters");
  if (!parameters.j.is_object()) parameters.fail("expected an object");
  for (const auto& [k, v] : parameters.j.items()) h.parameters[k] = parameters.at(k.c_str()).as<std::string>();
  if (root.has("drive")) {
    const At drive = root.at("drive");
    if (drive.has("smart_before")) h.smart_before = smart_from_json(drive.at("smart_before"));
    if (drive.has("smart_after")) h.smart_after = smart_from_json(drive.at("smart_after"));
  }
  if (root.has("purge")) h.purge = purge_from_json(root.at("purge"));
  if (root.has("purges")) {
    const At purges = root.at("purges");
    for (std::size_t i = 0; i < purges.array().size(); ++i) {
      const At p = purges.at(i);
      h.purges.push_back({p.at("stage").as<std::size_t>(), purge_from_json(p)});
    }
  }
  if (root.has("conditions")) {
    const At conditions = root.at("conditions");
    for (std::size_t i = 0; i < conditions.array().size(); ++i) {
      RunCondition condition;
      read_fields_at(conditions.at(i), condition, kConditionFields);
      h.conditions.push_back(std::move(condition));
    }
  }
  if (root.has("write_cache")) {
    const At cache = root.at("write_cache");
    WriteCacheRecord w;
    read_fields_at(cache, w, kWriteCacheFields);
    read_optional_at(cache, w, kWriteCacheOptional);
    h.write_cache = std::move(w);
  }
  if (root.has("resumed")) h.resumed = root.at("resumed").as<int>();
  if (root.has("resumable")) h.resumable = root.at("resumable").as<bool>();
  if (root.has("failure")) h.failure = root.at("failure").as<std::string>();
  if (root.has("ended_at")) h.ended_at = root.at("ended_at").as<std::string>();
  if (root.has("plan")) h.plan = plan_from_json(root.at("plan"));
  return h;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> smart_record_fields(const SmartRecord& s) {
  std::vector<std::pair<std::string, std::string>> out;
  const json fields = smart_json(s);
  for (const auto& [k, v] : fields.items()) out.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

json header_json(const RunHeader& h) {
  json target = json::object();
  write_fields(target, h.target, kTargetFields);
  write_optional(target, h.target, kTargetOptional);
  if (h.target.logical_block_bytes != 0) target[kLogicalBlockBytes] = h.target.logical_block_bytes;
  json drive = json::object();
  if (h.smart_before) drive["smart_before"] = smart_json(*h.smart_before);
  if (h.smart_after) drive["smart_after"] = smart_json(*h.smart_after);
  json j = {{"schema", h.schema},
            {"run_id", h.run_id == 0 ? std::string() : std::to_string(h.run_id)},
            {"test", h.test},
            {"started_at", h.started_at},
            {"started_ns", h.started_ns},
            {"nvmond_version", h.nvmond_version},
            {"clock", h.simulated_clock ? kSimulatedClock : kSystemClock},
            {"target", target},
            {"parameters", h.parameters},
            {"drive", drive}};
  if (h.profile) j["profile"] = profile_name(*h.profile);
  if (h.purge) j["purge"] = purge_json(*h.purge);
  for (const auto& p : h.purges) {
    json one = purge_json(p.purge);
    one["stage"] = p.stage;
    j["purges"].push_back(one);
  }
  for (const auto& c : h.conditions) {
    json one = json::object();
    write_fields(one, c, kConditionFields);
    j["conditions"].push_back(one);
  }
  if (h.write_cache) {
    json cache = json::object();
    write_fields(cache, *h.write_cache, kWriteCacheFields);
    write_optional(cache, *h.write_cache, kWriteCacheOptional);
    j["write_cache"] = cache;
  }
  if (h.resumed > 0) j["resumed"] = h.resumed;
  if (h.resumable) j["resumable"] = true;
  if (h.failure) j["failure"] = *h.failure;
  if (h.ended_at) j["ended_at"] = *h.ended_at;
  return j;
}

Result<RunHeader> header_from_json(const json& j) {
  try {
    return decode_header(j);
  } catch (const std::invalid_argument& e) {
    return Error{ErrorReason::decode, e.what()};
  } catch (const json::exception& e) {  // a number beyond its field's type
    return Error{ErrorReason::decode, e.what()};
  }
}

std::string header_blob(const RunHeader& header) {
  json j = header_json(header);
  if (header.plan) j["plan"] = plan_json(*header.plan);
  return j.dump();
}

Result<RunHeader> header_from_blob(const std::string& blob) {
  const json j = json::parse(blob, nullptr, false);
  if (j.is_discarded()) return Error{ErrorReason::decode, "not JSON"};
  return header_from_json(j);
}

json run_head_json(const RunHeader& header, RunStatus status) {
  json j = header_json(header);
  j["status"] = std::string(to_text(status));
  return j;
}

json run_view_json(const RunView& r) {
  const auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json j = {{"id", r.id},
            {"name", r.name},
            {"test", r.test},
            {"target", r.target},
            {"serial", r.serial},
            {"status", std::string(to_text(r.status))},
            {"round", r.round},
            {"rounds_total", r.rounds_total},
            {"phase", r.phase},
            {"iops", std::isfinite(r.iops) ? json(r.iops) : json(nullptr)},
            {"bytes_per_second", std::isfinite(r.bytes_per_second) ? json(r.bytes_per_second) : json(nullptr)},
            {"eta_s", r.eta ? json(seconds(*r.eta)) : json(nullptr)},
            {"started", static_cast<double>(r.started_ns) / 1e9},
            {"ended", r.ended_ns ? json(static_cast<double>(*r.ended_ns) / 1e9) : json(nullptr)},
            {"steady", opt(r.steady)}};
  // Present only while the daemon holds the run paused for its store.
  if (!r.paused_reason.empty()) j["paused_for"] = {{"reason", r.paused_reason}, {"detail", r.paused_detail}};
  return j;
}

namespace {

std::int64_t ns_of_seconds(double s) { return std::llround(s * 1e9); }

}  // namespace

Result<RunView> run_view_from_json(const json& j) {
  using namespace json_keys;
  try {
    RunView r;
    r.id = integer_of(j, "id", "a run id");
    r.name = string_of(j, "name", "a string");
    r.test = string_of(j, "test", "a string");
    r.target = string_of(j, "target", "a string");
    r.serial = string_of(j, "serial", "a string");
    auto status = run_status_from_text(string_of(j, "status", "a string"));
    if (!status) bad("status", "a run status");
    r.status = *status;
    r.round = integer_of(j, "round", "a round count");
    r.rounds_total = integer_of(j, "rounds_total", "a round count");
    r.phase = string_of(j, "phase", "a string");
    r.iops = number_or_null(j, "iops").value_or(std::numeric_limits<double>::quiet_NaN());
    r.bytes_per_second = number_or_null(j, "bytes_per_second").value_or(std::numeric_limits<double>::quiet_NaN());
    if (auto eta = number_or_null(j, "eta_s")) r.eta = from_seconds(*eta);
    auto started = number_or_null(j, "started");
    if (!started) bad("started", "a time");
    r.started_ns = ns_of_seconds(*started);
    if (auto ended = number_or_null(j, "ended")) r.ended_ns = ns_of_seconds(*ended);
    const json& steady = need(j, "steady", "true, false or null");
    if (!steady.is_null() && !steady.is_boolean()) bad("steady", "true, false or null");
    if (steady.is_boolean()) r.steady = steady.get<bool>();
    if (j.contains("paused_for")) {
      const json& p = j["paused_for"];
      if (!p.is_object()) bad("paused_for", "an object");
      r.paused_reason = string_of(p, "reason", "a string");
      r.paused_detail = string_of(p, "detail", "a string");
    }
    return r;
  } catch (const json_keys::DecodeError& e) {
    return Error{ErrorReason::decode, e.what()};
  }
}

Result<RunStatus> status_from_json(const json& run) {
  if (!run.is_object() || !run.contains("status") || !run["status"].is_string()) {
    return Error{ErrorReason::decode, "run: status: expected a string"};
  }
  return run_status_from_text(run["status"].get<std::string>());
}

}  // namespace nvmond
