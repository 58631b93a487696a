#include "core/json_path.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace nvmond::json_keys {

void Path::fail(const std::string& what) const {
  throw DecodeError(fmt::format("{}: {}", path.empty() ? "(top level)" : path, what));
}

bool Path::has(const char* key) const { return j.is_object() && j.contains(key) && !j.at(key).is_null(); }

Path Path::at(const char* key) const {
  if (!j.is_object()) fail("expected an object");
  const std::string where = path.empty() ? std::string(key) : path + "." + key;
  if (!j.contains(key)) Path{j, where}.fail("missing");
  return {j.at(key), where};
}

Path Path::at(std::size_t i) const {
  if (!j.is_array() || i >= j.size()) fail(fmt::format("no element {}", i));
  return {j.at(i), fmt::format("{}[{}]", path, i)};
}

const nlohmann::json& Path::array() const {
  if (!j.is_array()) fail("expected an array");
  return j;
}

double Path::number(const char* key) const {
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  if (!has(key)) return none;
  const double v = at(key).as<double>();
  return std::isfinite(v) ? v : none;
}

std::string Path::text(const char* key) const { return has(key) ? at(key).as<std::string>() : std::string(); }

bool Path::flag(const char* key) const { return has(key) && at(key).as<bool>(); }

std::optional<Path> Path::object(const char* key) const {
  if (!has(key)) return std::nullopt;
  auto n = at(key);
  if (!n.j.is_object()) n.fail("expected an object");
  return n;
}

std::vector<Path> Path::array(const char* key) const {
  std::vector<Path> out;
  if (!has(key)) return out;
  const auto n = at(key);
  n.array();
  for (std::size_t i = 0; i < n.j.size(); ++i) out.push_back(n.at(i));
  return out;
}

double number_or(const Path& n, const char* key, double absent) {
  const double v = n.number(key);
  return std::isnan(v) ? absent : v;
}

namespace {

std::uint64_t as_count(const Path& v) {
  const double x = v.as<double>();
  if (x < 0) v.fail("expected a count, got a negative number");
  return static_cast<std::uint64_t>(std::llround(x));
}

}  // namespace

std::uint64_t count_or(const Path& n, const char* key, std::uint64_t absent) {
  return n.has(key) ? as_count(n.at(key)) : absent;
}

std::vector<std::uint64_t> counts(const Path& n, const char* key) {
  std::vector<std::uint64_t> out;
  for (const Path& v : n.array(key)) out.push_back(as_count(v));
  return out;
}

std::vector<double> numbers(const Path& n, const char* key) {
  std::vector<double> out;
  for (const Path& v : n.array(key)) out.push_back(v.as<double>());
  return out;
}

}  // namespace nvmond::json_keys
