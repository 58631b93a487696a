// A simulated drive's state as JSON, saved after each poll so that a restart
// continues the drive's life.
#include <nlohmann/json.hpp>

#include <stdexcept>

#include "sim/drive_model.hpp"
#include "sim/drive_model_detail.hpp"
#include "core/atomic_file.hpp"
#include "collectors/sim_name.hpp"

namespace nvmond {

using sim_detail::to_kelvin;

namespace {

constexpr int kStateVersion = 1;

u128 u128_from_string(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("empty 128-bit value");
  u128 v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') throw std::invalid_argument("bad 128-bit value \"" + s + "\"");
    u128 next = v * 10 + static_cast<unsigned>(ch - '0');
    if (next / 10 != v) throw std::invalid_argument("128-bit value overflows \"" + s + "\"");
    v = next;
  }
  return v;
}

}  // namespace

// ---- persistence ---------------------------------------------------------

std::string DriveModel::save_state() const {
  using nlohmann::json;
  std::lock_guard lock(mu_);
  auto thresholds = [](const auto& arr) {
    json a = json::array();
    for (const auto& v : arr) a.push_back(v ? json(*v) : json(nullptr));
    return a;
  };
  json j = {
      {"format", "nvmond-sim-drive"},
      {"version", kStateVersion},
      {"serial", spec_.serial},
      {"time_ns", to_unix_ns(now_)},
      {"counters",
       {{"host_read_bytes", to_string(c_.host_read_bytes)},
        {"host_write_bytes", to_string(c_.host_write_bytes)},
        {"read_commands", to_string(c_.read_commands)},
        {"write_commands", to_string(c_.write_commands)},
        {"background_read_bytes", to_string(c_.background_read_bytes)},
        {"background_write_bytes", to_string(c_.background_write_bytes)},
        {"media_write_bytes", to_string(c_.media_write_bytes)},
        {"media_write_fraction", c_.media_write_fraction},
        {"busy_ns", to_string(c_.busy_ns)},
        {"power_on_ns", to_string(c_.power_on_ns)},
        {"power_cycles", to_string(c_.power_cycles)},
        {"warning_temp_s", c_.thermal.warning_temp_s},
        {"critical_temp_s", c_.thermal.critical_temp_s},
        {"tmt1_transitions", c_.thermal.tmt1_transitions},
        {"tmt2_transitions", c_.thermal.tmt2_transitions},
        {"tmt1_s", c_.thermal.tmt1_s},
        {"tmt2_s", c_.thermal.tmt2_s},
        {"throttle_events", c_.throttle_events}}},
      {"physical",
       {{"temp_c", p_.temp_c},
        {"level", p_.level},
        {"slc_used", p_.slc_used},
        {"written_since_purge", to_string(p_.written_since_purge)},
        {"last_io_ns", to_unix_ns(p_.last_io)},
        {"background_elapsed_ns", p_.background_elapsed_ns},
        {"span_lo", p_.span_lo},
        {"span_hi", p_.span_hi}}},
      {"thresholds", {{"over_k", thresholds(thresholds_.over_k)}, {"under_k", thresholds(thresholds_.under_k)}}},
  };
  return j.dump(2);
}

std::optional<Error> DriveModel::load_state(const std::string& text) {
  using nlohmann::json;
  const std::string who = sim_device_path(spec_.name) + ": load state: ";
  Counters c;
  Physical p;
  TemperatureThresholds th;
  WallTime time{};
  try {
    json j = json::parse(text);
    if (j.at("format").get<std::string>() != "nvmond-sim-drive") return Error{"decode", who + "not a sim drive state"};
    if (j.at("version").get<int>() != kStateVersion) {
      return Error{"decode", who + "unsupported version " + j.at("version").dump()};
    }
    if (j.at("serial").get<std::string>() != spec_.serial) {
      return Error{"decode", who + "state belongs to serial " + j.at("serial").get<std::string>()};
    }
    time = from_unix_ns(j.at("time_ns").get<std::int64_t>());
    const json& jc = j.at("counters");
    auto big = [&](const char* key) { return u128_from_string(jc.at(key).get<std::string>()); };
    c.host_read_bytes = big("host_read_bytes");
    c.host_write_bytes = big("host_write_bytes");
    c.read_commands = big("read_commands");
    c.write_commands = big("write_commands");
    c.background_read_bytes = big("background_read_bytes");
    c.background_write_bytes = big("background_write_bytes");
    c.media_write_bytes = big("media_write_bytes");
    c.media_write_fraction = jc.at("media_write_fraction").get<double>();
    c.busy_ns = big("busy_ns");
    c.power_on_ns = big("power_on_ns");
    c.power_cycles = big("power_cycles");
    c.thermal.warning_temp_s = jc.at("warning_temp_s").get<double>();
    c.thermal.critical_temp_s = jc.at("critical_temp_s").get<double>();
    c.thermal.tmt1_transitions = jc.at("tmt1_transitions").get<std::uint32_t>();
    c.thermal.tmt2_transitions = jc.at("tmt2_transitions").get<std::uint32_t>();
    c.thermal.tmt1_s = jc.at("tmt1_s").get<double>();
    c.thermal.tmt2_s = jc.at("tmt2_s").get<double>();
    c.throttle_events = jc.at("throttle_events").get<std::uint32_t>();
    const json& jp = j.at("physical");
    p.temp_c = jp.at("temp_c").get<double>();
    p.level = std::clamp(jp.at("level").get<int>(), 0, static_cast<int>(spec_.throttle.size()));
    p.slc_used = std::min(jp.at("slc_used").get<std::uint64_t>(), spec_.slc_cache_bytes);
    p.written_since_purge = u128_from_string(jp.at("written_since_purge").get<std::string>());
    p.last_io = from_unix_ns(jp.at("last_io_ns").get<std::int64_t>());
    p.background_elapsed_ns = jp.at("background_elapsed_ns").get<std::int64_t>();
    // Absent in states saved before spans were tracked: the whole drive.
    p.span_lo = jp.value("span_lo", std::uint64_t{0});
    p.span_hi = jp.value("span_hi", std::uint64_t{0});
    const json& jt = j.at("thresholds");
    for (std::size_t i = 0; i < 9; ++i) {
      const bool present = i == 0 || static_cast<int>(i) <= spec_.sensors;
      const json& o = jt.at("over_k").at(i);
      const json& u = jt.at("under_k").at(i);
      th.over_k[i] = present && !o.is_null() ? std::optional(o.get<std::uint16_t>()) : std::nullopt;
      th.under_k[i] = present && !u.is_null() ? std::optional(u.get<std::uint16_t>()) : std::nullopt;
    }
    // A sensor added to the config since the save gets the defaults.
    for (int i = 1; i <= spec_.sensors; ++i) {
      auto idx = static_cast<std::size_t>(i);
      if (!th.over_k[idx]) th.over_k[idx] = 0xFFFF;
      if (!th.under_k[idx]) th.under_k[idx] = 0;
    }
    if (!th.over_k[0]) th.over_k[0] = to_kelvin(spec_.warning_temp_c);
    if (!th.under_k[0]) th.under_k[0] = 0;
  } catch (const std::exception& e) {
    return Error{"decode", who + e.what()};
  }
  std::lock_guard lock(mu_);
  now_ = time;
  c_ = c;
  p_ = p;
  thresholds_ = th;
  return std::nullopt;
}

std::optional<Error> save_state_file(const DriveModel& model, const std::string& path) {
  return write_file_atomically(path, model.save_state());
}

std::optional<Error> load_state_file(DriveModel& model, const std::string& path) {
  auto text = read_whole_file(path);
  if (!text) return text.error();
  if (auto err = model.load_state(*text)) {
    err->message = path + ": " + err->message;
    return err;
  }
  return std::nullopt;
}

}  // namespace nvmond
