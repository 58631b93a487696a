// A simulated drive's state as JSON, saved after each poll so that a restart
// continues the drive's life.
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "sim/drive_model.hpp"
#include "sim/drive_model_detail.hpp"
#include "core/atomic_file.hpp"
#include "collectors/sim_name.hpp"

namespace nvmond {

using sim_detail::read_event_log;
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

// Every counter the state file keeps, under its own name: `f(key, counter)`,
// for saving and loading alike.
template <typename Counters, typename F>
void each_counter(Counters& c, F f) {
  f("host_read_bytes", c.host_read_bytes);
  f("host_write_bytes", c.host_write_bytes);
  f("read_commands", c.read_commands);
  f("write_commands", c.write_commands);
  f("background_read_bytes", c.background_read_bytes);
  f("background_write_bytes", c.background_write_bytes);
  f("media_write_bytes", c.media_write_bytes);
  f("media_write_fraction", c.media_write_fraction);
  f("busy_ns", c.busy_ns);
  f("power_on_ns", c.power_on_ns);
  f("power_cycles", c.power_cycles);
  f("warning_temp_s", c.thermal.warning_temp_s);
  f("critical_temp_s", c.thermal.critical_temp_s);
  f("tmt1_transitions", c.thermal.tmt1_transitions);
  f("tmt2_transitions", c.thermal.tmt2_transitions);
  f("tmt1_s", c.thermal.tmt1_s);
  f("tmt2_s", c.thermal.tmt2_s);
  f("throttle_events", c.throttle_events);
}

template <typename T>
void read_state_value(const nlohmann::json& j, T& v) {
  if constexpr (std::is_same_v<T, u128>) v = u128_from_string(j.get<std::string>());
  else j.get_to(v);
}

// The state as compact JSON, written straight into its text: it is saved
// after every poll of every simulated drive, where building nlohmann's tree
// first cost a third of a drive-poll's instructions. load_state() reads it
// with nlohmann. Keys and values go in the order they are given; a comma
// goes before every element but a container's first.
class StateJson {
 public:
  StateJson() { out_.reserve(2048); }
  StateJson& key(std::string_view k) {
    comma();
    quoted(k);
    out_.push_back(':');
    first_ = true;  // the value follows without a comma
    return *this;
  }
  StateJson& begin(char bracket) {
    comma();
    out_.push_back(bracket);
    first_ = true;
    return *this;
  }
  StateJson& end(char bracket) {
    out_.push_back(bracket);
    first_ = false;
    return *this;
  }
  // 128-bit counters as decimal strings: a JSON number would round them.
  StateJson& number(const u128& v) {
    comma();
    out_.push_back('"');
    out_ += to_string(v);
    out_.push_back('"');
    return *this;
  }
  // What nlohmann writes for a double that is not finite: null.
  StateJson& number(double v) {
    if (!std::isfinite(v)) return null();
    comma();
    fmt::format_to(std::back_inserter(out_), "{}", v);
    return *this;
  }
  template <typename T>
  requires std::is_integral_v<T> StateJson& number(T v) {
    comma();
    fmt::format_to(std::back_inserter(out_), "{}", v);
    return *this;
  }
  StateJson& boolean(bool v) {
    comma();
    out_ += v ? "true" : "false";
    return *this;
  }
  StateJson& null() {
    comma();
    out_ += "null";
    return *this;
  }
  StateJson& text(std::string_view v) {
    comma();
    quoted(v);
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  void comma() {
    if (!first_) out_.push_back(',');
    first_ = false;
  }
  void quoted(std::string_view v) {
    out_.push_back('"');
    for (char ch : v) {
      const auto u = static_cast<unsigned char>(ch);
      if (ch == '"' || ch == '\\') {
        out_.push_back('\\');
        out_.push_back(ch);
      } else if (u < 0x20) {
        fmt::format_to(std::back_inserter(out_), "\\u{:04x}", unsigned{u});
      } else {
        out_.push_back(ch);
      }
    }
    out_.push_back('"');
  }
  std::string out_;
  bool first_ = true;
};

void read_valid_data(const nlohmann::json& j, ValidDataMap& m) {
  std::vector<std::pair<std::size_t, double>> runs;
  for (const auto& r : j.at("runs")) runs.emplace_back(r.at(0).get<std::size_t>(), r.at(1).get<double>());
  std::optional<LbaRange> stream;
  if (j.contains("stream")) {
    stream = LbaRange{j.at("stream").at(0).get<std::uint64_t>(), j.at("stream").at(1).get<std::uint64_t>()};
  }
  if (j.at("chunks").get<std::size_t>() != ValidDataMap::kChunks || !m.restore(runs, stream)) {
    throw std::invalid_argument("valid_data does not fit this drive's map");
  }
}

// States saved before the map: what that model assumed. It knew the span the
// host had written since the purge, or nothing, and then counted the whole
// drive as valid; a drive that has written nothing since its purge is empty
// (fresh out of box).
void assume_valid_data(const nlohmann::json& physical, u128 written_since_purge, ValidDataMap& m) {
  if (written_since_purge == 0) return;
  const auto lo = physical.value("span_lo", std::uint64_t{0});
  const auto hi = physical.value("span_hi", std::uint64_t{0});
  if (hi <= lo) {
    m.fill();
  } else {
    m.write_extent(lo, hi - lo);
  }
}

}  // namespace

// ---- persistence ---------------------------------------------------------

std::string DriveModel::save_state() const {
  std::lock_guard lock(mu_);
  StateJson j;
  j.begin('{');
  j.key("format").text("nvmond-sim-drive");
  j.key("version").number(kStateVersion);
  j.key("serial").text(spec_.serial);
  j.key("time_ns").number(to_unix_ns(now_));
  j.key("counters").begin('{');
  each_counter(c_, [&](const char* key, const auto& v) { j.key(key).number(v); });
  j.end('}');
  j.key("physical").begin('{');
  j.key("temp_c").number(p_.temp_c);
  j.key("level").number(p_.level);
  j.key("slc_used").number(p_.slc_used);
  j.key("gc_reserve").number(p_.gc_reserve);
  j.key("written_since_purge").number(p_.written_since_purge);
  j.key("last_io_ns").number(to_unix_ns(p_.last_io));
  j.key("background_elapsed_ns").number(p_.background_elapsed_ns);
  j.end('}');
  j.key("valid_data").begin('{');
  j.key("chunks").number(ValidDataMap::kChunks);
  j.key("runs").begin('[');
  for (const auto& [count, share] : valid_.runs()) {
    j.begin('[').number(count).number(share).end(']');
  }
  j.end(']');
  if (auto stream = valid_.open_stream()) j.key("stream").begin('[').number(stream->lo).number(stream->hi).end(']');
  j.end('}');
  auto thresholds = [&](const auto& arr) {
    j.begin('[');
    for (const auto& v : arr) {
      if (v) {
        j.number(*v);
      } else {
        j.null();
      }
    }
    j.end(']');
  };
  j.key("thresholds").begin('{');
  j.key("over_k");
  thresholds(thresholds_.over_k);
  j.key("under_k");
  thresholds(thresholds_.under_k);
  j.end('}');
  j.key("event_log").begin('{');
  j.key("next_seq").number(events_.next_seq);
  j.key("injected").boolean(events_.injected);
  j.key("events").begin('[');
  for (const auto& e : events_.events) {
    j.begin('{');
    j.key("seq").number(e.seq);
    j.key("type").number(unsigned{e.type});
    j.key("time_ns").number(to_unix_ns(e.at));
    j.key("over_c").number(unsigned{e.over_celsius});
    j.key("threshold_c").number(unsigned{e.threshold_celsius});
    j.end('}');
  }
  j.end(']').end('}');
  j.end('}');
  return j.take();
}

std::optional<Error> DriveModel::load_state(const std::string& text) {
  using nlohmann::json;
  const std::string who = sim_device_path(spec_.name) + ": load state: ";
  Counters c;
  Physical p;
  ValidDataMap valid(spec_.capacity_bytes);
  TemperatureThresholds th;
  SimEventLog events;
  WallTime time{};
  try {
    json j = json::parse(text);
    if (j.at("format").get<std::string>() != "nvmond-sim-drive")
      return Error{ErrorReason::decode, who + "not a sim drive state"};
    if (j.at("version").get<int>() != kStateVersion) {
      return Error{ErrorReason::decode, who + "unsupported version " + j.at("version").dump()};
    }
    if (j.at("serial").get<std::string>() != spec_.serial) {
      return Error{ErrorReason::decode, who + "state belongs to serial " + j.at("serial").get<std::string>()};
    }
    time = from_unix_ns(j.at("time_ns").get<std::int64_t>());
    const json& jc = j.at("counters");
    each_counter(c, [&](const char* key, auto& v) { read_state_value(jc.at(key), v); });
    const json& jp = j.at("physical");
    p.temp_c = jp.at("temp_c").get<double>();
    p.level = std::clamp(jp.at("level").get<int>(), 0, static_cast<int>(spec_.throttle.size()));
    p.slc_used = std::min(jp.at("slc_used").get<std::uint64_t>(), spec_.slc_cache_bytes);
    read_state_value(jp.at("written_since_purge"), p.written_since_purge);
    // States saved before the model had idle collection: none reclaimed.
    p.gc_reserve = std::max(0.0, jp.value("gc_reserve", 0.0));
    p.last_io = from_unix_ns(jp.at("last_io_ns").get<std::int64_t>());
    p.background_elapsed_ns = jp.at("background_elapsed_ns").get<std::int64_t>();
    if (j.contains("valid_data")) {
      read_valid_data(j.at("valid_data"), valid);
    } else {
      assume_valid_data(jp, p.written_since_purge, valid);
    }
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
    if (j.contains("event_log")) read_event_log(j.at("event_log"), events);
    events.hot = p.temp_c >= spec_.warning_temp_c;
  } catch (const std::exception& e) {
    return Error{ErrorReason::decode, who + e.what()};
  }
  std::lock_guard lock(mu_);
  now_ = time;
  c_ = c;
  p_ = p;
  valid_ = std::move(valid);
  thresholds_ = th;
  events_ = std::move(events);
  history_power_on_hours_ = static_cast<std::uint64_t>(c_.power_on_ns / sim_detail::kNsPerHour);
  return std::nullopt;
}

std::optional<Error> save_state_file(const DriveModel& model, const std::string& path, Durability durability) {
  return write_file_atomically(path, model.save_state(), durability);
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
