#include "runmodel/request.hpp"

#include <fmt/core.h>

#include <cmath>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "core/config_reader.hpp"

namespace nvmond {

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(' ');
    const auto e = item.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& what) {
  throw ParamError(fmt::format("parameter {}={}: {}", key, value, what));
}

std::string given_text(const GivenValue& g) {
  if (const auto* s = std::get_if<std::string>(&g)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&g)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&g)) return fmt::format("{}", *d);
  return std::get<bool>(g) ? "true" : "false";
}

std::int64_t text_integer(const std::string& key, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE) bad(key, v, "not an integer");
  return x;
}

// A size as text: plain digits are a byte count read exactly (parse_bytes
// reads through a double and would round one above 2^53), so the canonical
// text of a request validates back to the same request.
std::optional<std::uint64_t> text_bytes(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) {
    errno = 0;
    const unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
    if (errno == ERANGE) return std::nullopt;
    return x;
  }
  return parse_bytes(v);
}

std::int64_t to_integer(const std::string& key, const GivenValue& g) {
  if (const auto* i = std::get_if<std::int64_t>(&g)) return *i;
  if (const auto* s = std::get_if<std::string>(&g)) return text_integer(key, *s);
  bad(key, given_text(g), "not an integer");
}

double to_number(const std::string& key, const GivenValue& g) {
  if (const auto* d = std::get_if<double>(&g)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&g)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&g)) {
    char* end = nullptr;
    const double x = std::strtod(s->c_str(), &end);
    if (!s->empty() && *end == '\0') return x;
  }
  bad(key, given_text(g), "not a number");
}

bool to_boolean(const std::string& key, const GivenValue& g) {
  if (const auto* b = std::get_if<bool>(&g)) return *b;
  if (const auto* s = std::get_if<std::string>(&g)) {
    if (*s == "true" || *s == "1" || *s == "yes") return true;
    if (*s == "false" || *s == "0" || *s == "no") return false;
  }
  bad(key, given_text(g), "not a boolean (true/false)");
}

std::uint64_t to_bytes(const std::string& key, const GivenValue& g) {
  if (const auto* i = std::get_if<std::int64_t>(&g); i && *i >= 0) return static_cast<std::uint64_t>(*i);
  if (!std::holds_alternative<bool>(g)) {
    if (auto b = text_bytes(given_text(g))) return *b;
  }
  bad(key, given_text(g), "not a size (e.g. 4KiB, 3.84TB)");
}

Duration to_duration(const std::string& key, const GivenValue& g) {
  if (!std::holds_alternative<bool>(g)) {
    if (auto d = parse_duration(given_text(g))) return *d;
  }
  bad(key, given_text(g), "not a duration (e.g. 60s, 5m, 10h)");
}

std::vector<std::uint64_t> to_bytes_list(const std::string& key, const GivenValue& g) {
  if (const auto* i = std::get_if<std::int64_t>(&g); i && *i > 0) return {static_cast<std::uint64_t>(*i)};
  const std::string all = given_text(g);
  std::vector<std::uint64_t> out;
  for (const auto& item : split(all)) {
    auto b = text_bytes(item);
    if (!b || *b == 0 || std::holds_alternative<bool>(g)) bad(key, all, "not a list of sizes (e.g. 4KiB,8KiB)");
    out.push_back(*b);
  }
  if (out.empty()) bad(key, all, "empty list");
  return out;
}

std::vector<std::int64_t> to_integer_list(const std::string& key, const GivenValue& g) {
  if (const auto* i = std::get_if<std::int64_t>(&g)) return {*i};
  if (!std::holds_alternative<std::string>(g)) bad(key, given_text(g), "not an integer");
  const std::string& all = std::get<std::string>(g);
  std::vector<std::int64_t> out;
  for (const auto& item : split(all)) out.push_back(text_integer(key, item));
  if (out.empty()) bad(key, all, "empty list");
  return out;
}

ParamValue to_value(const ParamSpec& spec, const GivenValue& g) {
  switch (spec.type) {
    case ParamType::integer: return to_integer(spec.key, g);
    case ParamType::number: return to_number(spec.key, g);
    case ParamType::boolean: return to_boolean(spec.key, g);
    case ParamType::bytes: return to_bytes(spec.key, g);
    case ParamType::duration: return to_duration(spec.key, g);
    case ParamType::bytes_list: return to_bytes_list(spec.key, g);
    case ParamType::integer_list: return to_integer_list(spec.key, g);
    case ParamType::choice: return given_text(g);
  }
  bad(spec.key, given_text(g), "has no type");
}

template <typename T>
std::string list_text(const std::vector<T>& x) {
  std::vector<std::string> s;
  for (auto n : x) s.push_back(std::to_string(n));
  return join(s);
}

std::string range_text(const ParamSpec& spec) {
  if (spec.type == ParamType::number) return fmt::format("{}..{}", spec.lo, spec.hi);
  return fmt::format("{}..{}", static_cast<std::int64_t>(spec.lo), static_cast<std::int64_t>(spec.hi));
}

// The steady-state rule's one cross-key condition, on the values the plan
// will use (given or default).
void check_steady_state(const TestSchema& schema, const std::map<std::string, ParamValue>& values) {
  auto value_of = [&](const std::string& key) {
    auto it = values.find(key);
    if (it != values.end()) return std::get<std::int64_t>(it->second);
    return std::get<std::int64_t>(*schema.find(key)->def);
  };
  const auto max_rounds = value_of("max_rounds");
  if (max_rounds != 0 && max_rounds < value_of("window")) {
    throw ParamError("steady-state max_rounds must be 0 (fixed length) or at least the window");
  }
}

}  // namespace

const char* param_type_name(ParamType t) {
  switch (t) {
    case ParamType::integer: return "integer";
    case ParamType::number: return "number";
    case ParamType::boolean: return "boolean";
    case ParamType::bytes: return "bytes";
    case ParamType::duration: return "duration";
    case ParamType::bytes_list: return "bytes list";
    case ParamType::integer_list: return "integer list";
    case ParamType::choice: return "choice";
  }
  return "?";
}

const ParamSpec* TestSchema::find(const std::string& key) const {
  for (const auto& p : params) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

PtsProfile parse_profile(const std::string& name) {
  if (auto p = profile_from_name(name)) return *p;
  throw ParamError(fmt::format("unknown profile \"{}\" (known: {})", name, join(profile_names(), ", ")));
}

std::string param_text(const ParamValue& v) {
  struct Text {
    std::string operator()(std::int64_t x) const { return std::to_string(x); }
    std::string operator()(double x) const { return fmt::format("{}", x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(std::uint64_t x) const { return std::to_string(x); }
    std::string operator()(Duration x) const { return fmt::format("{}s", seconds(x)); }
    std::string operator()(const std::vector<std::uint64_t>& x) const { return list_text(x); }
    std::string operator()(const std::vector<std::int64_t>& x) const { return list_text(x); }
    std::string operator()(const std::string& x) const { return x; }
  };
  return std::visit(Text{}, v);
}

void check_value(const ParamSpec& spec, const ParamValue& v) {
  const auto& key = spec.key;
  switch (spec.type) {
    case ParamType::integer: {
      const auto x = std::get<std::int64_t>(v);
      const auto d = static_cast<double>(x);
      if (d < spec.lo || d > spec.hi) bad(key, std::to_string(x), "must be in " + range_text(spec));
      return;
    }
    case ParamType::number: {
      const double x = std::get<double>(v);
      if (!(x >= spec.lo && x <= spec.hi)) bad(key, fmt::format("{}", x), "must be in " + range_text(spec));
      return;
    }
    case ParamType::duration:
      if (std::get<Duration>(v) <= Duration::zero()) {
        bad(key, fmt::format("{}", seconds(std::get<Duration>(v))), "must be positive");
      }
      return;
    case ParamType::integer_list:
      for (auto n : std::get<std::vector<std::int64_t>>(v)) {
        const auto d = static_cast<double>(n);
        if (d < spec.lo) bad(key, param_text(v), n < 0 ? "negative value" : "a value below " + range_text(spec));
        if (d > spec.hi) bad(key, param_text(v), "a value above " + fmt::format("{}", spec.hi));
      }
      return;
    case ParamType::choice:
      for (const auto& a : spec.allowed) {
        if (a == std::get<std::string>(v)) return;
      }
      bad(key, std::get<std::string>(v), "must be one of " + join(spec.allowed));
    case ParamType::boolean:
    case ParamType::bytes:
    case ParamType::bytes_list: return;
  }
}

ParamMap TestRequest::text() const {
  ParamMap out;
  for (const auto& [k, v] : values) out[k] = param_text(v);
  return out;
}

namespace {

const ParamSpec& known_spec(const TestSchema& schema, const std::string& key) {
  if (const ParamSpec* spec = schema.find(key)) return *spec;
  std::vector<std::string> known;
  for (const auto& p : schema.params) known.push_back(p.key);
  std::sort(known.begin(), known.end());
  throw ParamError(fmt::format("test {} has no parameter \"{}\" (it knows: {})", schema.test, key,
                               known.empty() ? "none" : join(known)));
}

}  // namespace

TestRequest validate_typed(const TestSchema& schema, const GivenParams& given, PtsProfile profile) {
  TestRequest r;
  r.test = schema.test;
  r.profile = profile;
  for (const auto& [key, g] : given) {
    const ParamSpec& spec = known_spec(schema, key);
    ParamValue v = to_value(spec, g);
    check_value(spec, v);
    r.values.emplace(key, std::move(v));
  }
  if (schema.steady_state) check_steady_state(schema, r.values);
  return r;
}

void check_request(const TestSchema& schema, const TestRequest& request) {
  for (const auto& [key, v] : request.values) {
    const ParamSpec& spec = known_spec(schema, key);
    // A value's index in ParamValue is its type (test_request.hpp).
    if (v.index() != static_cast<std::size_t>(spec.type)) {
      throw ParamError(fmt::format("{}: expected {}", key, param_type_name(spec.type)));
    }
    check_value(spec, v);
  }
  if (schema.steady_state) check_steady_state(schema, request.values);
}

}  // namespace nvmond
