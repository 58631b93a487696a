#include "core/config_reader.hpp"

#include <fmt/core.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace nvmond {

namespace {
std::string position(const std::string& file, const toml::source_region& where) {
  return fmt::format("{}:{}:{}", file, where.begin.line, where.begin.column);
}

// Splits "12.5MiB" into 12.5 and "MiB". strtod would also take "nan", "inf"
// and hex floats: a value must start like a decimal number.
bool split_number(std::string_view text, double& value, std::string& suffix) {
  std::string s(text);
  std::size_t digits = s.find_first_not_of("+-");
  if (digits == std::string::npos || digits > 1 ||
      !(std::isdigit(static_cast<unsigned char>(s[digits])) || s[digits] == '.')) {
    return false;
  }
  if (s.compare(digits, 2, "0x") == 0 || s.compare(digits, 2, "0X") == 0) return false;
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return false;
  suffix.assign(end);
  while (!suffix.empty() && suffix.front() == ' ') suffix.erase(suffix.begin());
  return std::isfinite(value);  // "1e999" overflows strtod to inf
}

// A duration string in nanoseconds, as a double so that "1e300s" is seen as
// too large instead of wrapping. nullopt when malformed.
std::optional<double> duration_ns(std::string_view text) {
  double v = 0;
  std::string unit;
  if (!split_number(text, v, unit)) return std::nullopt;
  static const std::pair<const char*, double> units[] = {{"", 1e9},   {"s", 1e9},    {"ms", 1e6},   {"us", 1e3},
                                                         {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9}};
  for (const auto& [name, scale] : units) {
    if (unit == name) return v * scale;
  }
  return std::nullopt;
}

// A size string in bytes, as a double (may be negative or beyond 2^64, for
// the range check to name). nullopt when malformed.
std::optional<double> byte_count(std::string_view text) {
  double v = 0;
  std::string unit;
  if (!split_number(text, v, unit)) return std::nullopt;
  static const std::pair<const char*, double> units[] = {
      {"", 1},     {"B", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6},     {"GB", 1e9},        {"TB", 1e12},          {"PB", 1e15}};
  for (const auto& [name, scale] : units) {
    if (unit == name) return v * scale;
  }
  return std::nullopt;
}

bool in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

// A size string in bytes per second: "50MB/s", or "50MB" with the "/s" left out.
std::optional<double> bytes_per_second(std::string_view text) {
  if (text.size() > 2 && text.ends_with("/s")) text.remove_suffix(2);
  return byte_count(text);
}

// How a duration or a rate is written: a bare number, which must be finite,
// or a string with a unit.
struct QuantityForm {
  std::string_view kind;                             // as in "must be a finite duration"
  double bare_scale;                                 // a bare number times this is in the base unit
  std::string_view bare_unit;                        // follows a bare number in errors: "5s"
  std::optional<double> (*parse)(std::string_view);  // the string form
  std::string_view expected;                         // the error when neither form reads
};

// A quantity's value in its base unit, and its text as range errors show it.
struct Quantity {
  double value;
  std::string shown;
};

std::optional<Quantity> read_quantity(TableReader& r, std::string_view key, const QuantityForm& form) {
  const toml::node* n = r.node(key);
  if (n == nullptr) return std::nullopt;
  std::optional<double> value;
  std::string shown;
  if (n->is_integer() || n->is_floating_point()) {
    const double bare = *n->value<double>();
    if (!std::isfinite(bare)) r.fail(key, fmt::format("must be a finite {}, not {}", form.kind, bare));
    value = bare * form.bare_scale;
    shown = fmt::format("{}{}", bare, form.bare_unit);
  } else if (n->is_string()) {
    shown = *n->value<std::string>();
    value = form.parse(shown);
  }
  if (!value) r.fail(key, std::string(form.expected));
  return Quantity{*value, shown};
}

std::string with_unit(double v, std::string_view unit) {
  return unit.empty() ? fmt::format("{}", v) : fmt::format("{} {}", v, unit);
}
}  // namespace

ConfigError::ConfigError(const std::string& file, const toml::source_region& where, const std::string& msg)
    : std::runtime_error(position(file, where) + ": " + msg) {}

std::optional<Duration> parse_duration(std::string_view text) {
  auto ns = duration_ns(text);
  if (!ns || !in_range(*ns, static_cast<double>(Duration::min().count()), 9.2e18)) return std::nullopt;
  return Duration(std::llround(*ns));
}

std::optional<std::uint64_t> parse_bytes(std::string_view text) {
  auto b = byte_count(text);
  if (!b || !in_range(*b, 0, 1.8e19)) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(*b));
}

std::string format_duration(Duration d) {
  static const std::pair<const char*, std::int64_t> units[] = {{"d", 86'400'000'000'000}, {"h", 3'600'000'000'000},
                                                               {"m", 60'000'000'000},     {"s", 1'000'000'000},
                                                               {"ms", 1'000'000},         {"us", 1'000}};
  for (const auto& [name, ns] : units) {
    if (d.count() != 0 && d.count() % ns == 0) return fmt::format("{}{}", d.count() / ns, name);
  }
  return d.count() == 0 ? "0s" : fmt::format("{}ns", d.count());
}

std::string format_bytes(std::uint64_t bytes) {
  // The unit that leaves the shortest number; SI first on a tie ("512kB", not "500KiB").
  static const std::pair<const char*, std::uint64_t> units[] = {{"EB", 1'000'000'000'000'000'000},
                                                                {"EiB", 1ULL << 60},
                                                                {"PB", 1'000'000'000'000'000},
                                                                {"PiB", 1ULL << 50},
                                                                {"TB", 1'000'000'000'000},
                                                                {"TiB", 1ULL << 40},
                                                                {"GB", 1'000'000'000},
                                                                {"GiB", 1ULL << 30},
                                                                {"MB", 1'000'000},
                                                                {"MiB", 1ULL << 20},
                                                                {"kB", 1'000},
                                                                {"KiB", 1ULL << 10}};
  std::string best = fmt::format("{}", bytes);
  std::size_t best_digits = best.size();
  for (const auto& [name, scale] : units) {
    if (bytes == 0 || bytes % scale != 0) continue;
    std::string digits = fmt::format("{}", bytes / scale);
    if (digits.size() < best_digits) {
      best_digits = digits.size();
      best = digits + name;
    }
  }
  return best;
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

void TableReader::fail_here(const std::string& message) const { throw ConfigError(file_, table_->source(), message); }

void TableReader::fail_range(std::string_view key, const std::string& shown, const std::string& lo,
                             const std::string& hi) const {
  fail(key, fmt::format("{} is out of range: must be between {} and {}", shown, lo, hi));
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
  double v = 0;
  if (n->is_integer()) v = static_cast<double>(*n->value<std::int64_t>());
  else if (n->is_floating_point()) v = *n->value<double>();
  else fail(key, "expected a number");
  if (!std::isfinite(v)) fail(key, fmt::format("must be a finite number, not {}", v));
  return v;
}

std::optional<double> TableReader::number(std::string_view key, const NumberRange& range) {
  auto v = number(key);
  if (v && !in_range(*v, range.lo, range.hi)) {
    fail_range(key, with_unit(*v, range.unit), fmt::format("{}", range.lo), with_unit(range.hi, range.unit));
  }
  return v;
}

std::optional<std::int64_t> TableReader::integer(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (n->is_integer()) return *n->value<std::int64_t>();
  fail(key, "expected an integer");
}

std::optional<std::int64_t> TableReader::integer(std::string_view key, const IntegerRange& range) {
  auto v = integer(key);
  if (v && (*v < range.lo || *v > range.hi)) {
    fail_range(key, std::to_string(*v), std::to_string(range.lo), std::to_string(range.hi));
  }
  return v;
}

std::optional<bool> TableReader::boolean(std::string_view key) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  if (n->is_boolean()) return *n->value<bool>();
  fail(key, "expected true or false");
}

std::optional<Duration> TableReader::duration(std::string_view key, const DurationRange& range) {
  static constexpr QuantityForm kForm{"duration", 1e9, "s", duration_ns,
                                      "expected a duration such as 10, \"500ms\", \"10s\", \"5m\", \"1h\""};
  const auto ns = read_quantity(*this, key, kForm);
  if (!ns) return std::nullopt;
  const double rounded = std::round(ns->value);
  if (!in_range(rounded, static_cast<double>(range.lo.count()), static_cast<double>(range.hi.count()))) {
    fail_range(key, ns->shown, format_duration(range.lo), format_duration(range.hi));
  }
  return Duration(static_cast<std::int64_t>(rounded));
}

std::optional<std::uint64_t> TableReader::bytes(std::string_view key, const ByteRange& range) {
  const toml::node* n = take(key);
  if (n == nullptr) return std::nullopt;
  std::optional<double> b;
  std::string shown;
  if (n->is_integer()) {
    b = static_cast<double>(*n->value<std::int64_t>());
    shown = std::to_string(*n->value<std::int64_t>());
  } else if (n->is_string()) {
    shown = *n->value<std::string>();
    b = byte_count(shown);
  }
  if (!b) fail(key, "expected a size such as 4096, \"4KiB\", \"3.84TB\"");
  if (!in_range(*b, static_cast<double>(range.lo), static_cast<double>(range.hi))) {
    fail_range(key, shown, format_bytes(range.lo), format_bytes(range.hi));
  }
  return static_cast<std::uint64_t>(std::llround(*b));
}

std::optional<std::uint64_t> TableReader::terabytes(std::string_view key, const ByteRange& range) {
  const toml::node* n = raw().get(key);
  if (n == nullptr || n->is_string()) return bytes(key, range);
  constexpr double kTB = 1e12;
  const auto tb =
      number(key, NumberRange{static_cast<double>(range.lo) / kTB, static_cast<double>(range.hi) / kTB, "TB"});
  return static_cast<std::uint64_t>(std::llround(*tb * kTB));
}

std::optional<double> TableReader::rate(std::string_view key, const ByteRange& range) {
  static constexpr QuantityForm kForm{"rate", 1, "", bytes_per_second,
                                      "expected bytes per second such as 50000000 or \"50MB/s\""};
  const auto v = read_quantity(*this, key, kForm);
  if (!v) return std::nullopt;
  if (!in_range(v->value, static_cast<double>(range.lo), static_cast<double>(range.hi))) {
    fail_range(key, v->shown, range.lo == 0 ? "0" : format_bytes(range.lo) + "/s", format_bytes(range.hi) + "/s");
  }
  return v->value;
}

std::optional<std::string> TableReader::choice(std::string_view key, const std::vector<std::string>& allowed) {
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
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw ConfigError(fmt::format("{}: cannot read the configuration: {}", path, ec.message()));
  if (std::filesystem::is_directory(status)) {
    throw ConfigError(fmt::format("{}: is a directory, not a configuration file", path));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw ConfigError(fmt::format("{}: not a regular file", path));
  }
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(path, e.source(), std::string(e.description()));
  }
}

}  // namespace nvmond
