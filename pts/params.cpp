#include "pts/params.hpp"

#include <fmt/core.h>

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

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& what) {
  throw ParamError(fmt::format("parameter {}={}: {}", key, value, what));
}

std::int64_t to_integer(const std::string& key, const std::string& v) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') bad(key, v, "not an integer");
  return x;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

std::optional<std::string> Params::take(const std::string& key) {
  auto it = given_.find(key);
  if (it == given_.end()) return std::nullopt;
  return it->second;
}

std::int64_t Params::integer(const std::string& key, std::int64_t def, std::int64_t lo, std::int64_t hi) {
  std::int64_t x = def;
  if (auto v = take(key)) x = to_integer(key, *v);
  if (x < lo || x > hi) bad(key, std::to_string(x), fmt::format("must be in {}..{}", lo, hi));
  effective_[key] = std::to_string(x);
  return x;
}

double Params::number(const std::string& key, double def, double lo, double hi) {
  double x = def;
  if (auto v = take(key)) {
    char* end = nullptr;
    x = std::strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0') bad(key, *v, "not a number");
  }
  if (!(x >= lo && x <= hi)) bad(key, fmt::format("{}", x), fmt::format("must be in {}..{}", lo, hi));
  effective_[key] = fmt::format("{}", x);
  return x;
}

bool Params::boolean(const std::string& key, bool def) {
  bool x = def;
  if (auto v = take(key)) {
    if (*v == "true" || *v == "1" || *v == "yes") x = true;
    else if (*v == "false" || *v == "0" || *v == "no") x = false;
    else bad(key, *v, "not a boolean (true/false)");
  }
  effective_[key] = x ? "true" : "false";
  return x;
}

std::uint64_t Params::bytes(const std::string& key, std::uint64_t def) {
  std::uint64_t x = def;
  if (auto v = take(key)) {
    auto b = parse_bytes(*v);
    if (!b) bad(key, *v, "not a size (e.g. 4KiB, 3.84TB)");
    x = *b;
  }
  effective_[key] = std::to_string(x);
  return x;
}

Duration Params::duration(const std::string& key, Duration def) {
  Duration x = def;
  if (auto v = take(key)) {
    auto d = parse_duration(*v);
    if (!d) bad(key, *v, "not a duration (e.g. 60s, 5m, 10h)");
    x = *d;
  }
  if (x <= Duration::zero()) bad(key, fmt::format("{}", seconds(x)), "must be positive");
  effective_[key] = fmt::format("{}s", seconds(x));
  return x;
}

// A comma-separated list, each item parsed by `one` (which calls bad() on a
// bad item), recorded as the decimal values.
template <typename T, typename Parse>
std::vector<T> Params::list(const std::string& key, const std::vector<T>& def, Parse one) {
  std::vector<T> x = def;
  if (auto v = take(key)) {
    x.clear();
    for (const auto& item : split(*v)) x.push_back(one(*v, item));
    if (x.empty()) bad(key, *v, "empty list");
  }
  std::vector<std::string> s;
  for (auto n : x) s.push_back(std::to_string(n));
  effective_[key] = join(s);
  return x;
}

std::vector<std::uint64_t> Params::bytes_list(const std::string& key, const std::vector<std::uint64_t>& def) {
  return list<std::uint64_t>(key, def, [&](const std::string& all, const std::string& item) {
    auto b = parse_bytes(item);
    if (!b || *b == 0) bad(key, all, "not a list of sizes (e.g. 4KiB,8KiB)");
    return *b;
  });
}

std::vector<std::int64_t> Params::integer_list(const std::string& key, const std::vector<std::int64_t>& def) {
  return list<std::int64_t>(key, def, [&](const std::string& all, const std::string& item) {
    const auto n = to_integer(key, item);
    if (n < 0) bad(key, all, "negative value");
    return n;
  });
}

std::string Params::choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed) {
  std::string x = take(key).value_or(def);
  bool ok = false;
  for (const auto& a : allowed) ok = ok || a == x;
  if (!ok) bad(key, x, "must be one of " + join(allowed));
  effective_[key] = x;
  return x;
}

void Params::finish(const std::string& test) const {
  for (const auto& [key, value] : given_) {
    if (effective_.count(key)) continue;
    std::vector<std::string> known;
    for (const auto& [k, v] : effective_) known.push_back(k);
    throw ParamError(fmt::format("test {} has no parameter \"{}\" (it knows: {})", test, key, join(known)));
  }
}

std::pair<std::string, std::string> parse_assignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw ParamError("--set " + text + ": expected KEY=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace nvmond
