#include "core/config_reader.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdlib>

namespace nvmond {

namespace {
std::string position(const std::string& file, const toml::source_region& where) {
  return fmt::format("{}:{}:{}", file, where.begin.line, where.begin.column);
}

// Splits "12.5MiB" into 12.5 and "MiB".
bool split_number(std::string_view text, double& value, std::string& suffix) {
  std::string s(text);
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return false;
  suffix.assign(end);
  while (!suffix.empty() && suffix.front() == ' ') suffix.erase(suffix.begin());
  return std::isfinite(value);
}
}  // namespace

ConfigError::ConfigError(const std::string& file, const toml::source_region& where,
                         const std::string& msg)
    : std::runtime_error(position(file, where) + ": " + msg) {}

std::optional<Duration> parse_duration(std::string_view text) {
  double v = 0;
  std::string unit;
  if (!split_number(text, v, unit)) return std::nullopt;
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "us") scale = 1e-6;
  else if (unit == "m") scale = 60;
  else if (unit == "h") scale = 3600;
  else if (unit == "d") scale = 86400;
  else return std::nullopt;
  return from_seconds(v * scale);
}

std::optional<std::uint64_t> parse_bytes(std::string_view text) {
  double v = 0;
  std::string unit;
  if (!split_number(text, v, unit) || v < 0) return std::nullopt;
  static const std::pair<const char*, double> units[] = {
      {"", 1},         {"B", 1},          {"KiB", 1024.0},  {"MiB", 1048576.0},
      {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"kB", 1e3}, {"KB", 1e3},
      {"MB", 1e6},     {"GB", 1e9},       {"TB", 1e12},     {"PB", 1e15}};
  for (const auto& [name, scale] : units) {
    if (unit == name) return static_cast<std::uint64_t>(std::llround(v * scale));
  }
  return std::nullopt;
}

TableReader::TableReader(const toml::table& table, std::string file, std::string where)
    : table_(&table), file_(std::move(file)), where_(std::move(where)) {}

const toml::node* TableReader::take(std::string_view key) {
  seen_.emplace(key);
  return table_->get(key);
}

const toml::node* TableReader::node(std::string_view key) { return take(key); }

void TableReader::fail(std::string_view key, const std::string& message) const {
  const toml::node* n = table_->get(key);
  std::string name = where_.empty() ? std::string(key) : where_ + "." + std::string(key);
  if (n != nullptr) throw ConfigError(file_, n->source(), name + ": " + message);
  fail_here(name + ": " + message);
}

void TableReader::fail_here(const std::string& message) const {
  throw ConfigError(file_, table_->source(), message);
}

std::optional<std::string> TableReader::string(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (auto s = n->value<std::string>(); s && n->is_string()) return *s;
  fail(key, "expected a string");
}

std::optional<double> TableReader::number(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (n->is_integer()) return static_cast<double>(*n->value<std::int64_t>());
  if (n->is_floating_point()) return *n->value<double>();
  fail(key, "expected a number");
}

std::optional<double> TableReader::number_in(std::string_view key, double lo, double hi) {
  auto v = number(key);
  if (v && (*v < lo || *v > hi)) fail(key, fmt::format("must be between {} and {}", lo, hi));
  return v;
}

std::optional<std::int64_t> TableReader::integer(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (n->is_integer()) return *n->value<std::int64_t>();
  fail(key, "expected an integer");
}

std::optional<bool> TableReader::boolean(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (n->is_boolean()) return *n->value<bool>();
  fail(key, "expected true or false");
}

std::optional<Duration> TableReader::duration(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  std::optional<Duration> d;
  if (n->is_integer() || n->is_floating_point()) d = from_seconds(*n->value<double>());
  else if (n->is_string()) d = parse_duration(*n->value<std::string>());
  if (!d) fail(key, "expected a duration such as 10, \"500ms\", \"10s\", \"5m\", \"1h\"");
  if (d->count() < 0) fail(key, "must not be negative");
  return d;
}

std::optional<std::uint64_t> TableReader::bytes(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (n->is_integer()) {
    auto v = *n->value<std::int64_t>();
    if (v < 0) fail(key, "must not be negative");
    return static_cast<std::uint64_t>(v);
  }
  if (n->is_string()) {
    if (auto b = parse_bytes(*n->value<std::string>())) return b;
  }
  fail(key, "expected a size such as 4096, \"4KiB\", \"3.84TB\"");
}

std::optional<std::string> TableReader::choice(std::string_view key,
                                               const std::vector<std::string>& allowed) {
  auto s = string(key);
  if (!s) return s;
  for (const auto& a : allowed) {
    if (*s == a) return s;
  }
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
  fail(key, fmt::format("\"{}\" is not one of {}", *s, list));
}

std::optional<TableReader> TableReader::table(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (!n->is_table()) fail(key, "expected a table");
  std::string name = where_.empty() ? std::string(key) : where_ + "." + std::string(key);
  return TableReader(*n->as_table(), file_, name);
}

std::vector<TableReader> TableReader::array_of_tables(std::string_view key) {
  std::vector<TableReader> out;
  const toml::node* n = take(key);
  if (n == nullptr) return out;
  if (!n->is_array_of_tables()) fail(key, fmt::format("expected [[{}]] tables", key));
  const auto& arr = *n->as_array();
  for (std::size_t i = 0; i < arr.size(); ++i) {
    std::string name = fmt::format("{}[{}]", key, i);
    out.emplace_back(*arr[i].as_table(), file_, where_.empty() ? name : where_ + "." + name);
  }
  return out;
}

std::vector<std::string> TableReader::strings(std::string_view key) {
  std::vector<std::string> out;
  const toml::node* n = take(key);
  if (n == nullptr) return out;
  if (!n->is_array()) fail(key, "expected an array of strings");
  for (const auto& e : *n->as_array()) {
    if (!e.is_string()) throw ConfigError(file_, e.source(), std::string(key) + ": expected a string");
    out.push_back(*e.value<std::string>());
  }
  return out;
}

void TableReader::finish() const {
  for (const auto& [k, v] : *table_) {
    if (seen_.count(k.str()) == 0) {
      std::string name = where_.empty() ? std::string(k.str()) : where_ + "." + std::string(k.str());
      throw ConfigError(file_, k.source(), "unknown key \"" + name + "\"");
    }
  }
}

toml::table parse_toml_file(const std::string& path) {
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(path, e.source(), std::string(e.description()));
  }
}

}  // namespace nvmond
