#pragma once
// Typed, position-aware reading of TOML tables. Every problem in a config file
// is reported as `file:line:col: message`, and unknown keys are errors (a typo
// in a threshold must not silently fall back to a default).
//
// Usage: construct on a table, read each known key through a getter (which
// records it as known), then call finish() to reject whatever is left.
#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"

namespace nvmond {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& file, const toml::source_region& where, const std::string& msg);
  explicit ConfigError(const std::string& msg) : std::runtime_error(msg) {}
};

// "500ms", "10s", "5m", "2h", "7d" or a bare number of seconds.
std::optional<Duration> parse_duration(std::string_view text);
// "4096", "4KiB", "1MiB", "3.84TB", "512GB" (SI and IEC suffixes).
std::optional<std::uint64_t> parse_bytes(std::string_view text);

class TableReader {
 public:
  // `where` is the dotted path of this table, used in messages ("device[1]").
  TableReader(const toml::table& table, std::string file, std::string where);

  std::optional<std::string> string(std::string_view key);
  std::optional<double> number(std::string_view key);  // integer or float
  std::optional<std::int64_t> integer(std::string_view key);
  std::optional<bool> boolean(std::string_view key);
  // Number of seconds or a duration string; negative is an error.
  std::optional<Duration> duration(std::string_view key);
  // Integer bytes or a size string; negative is an error.
  std::optional<std::uint64_t> bytes(std::string_view key);
  // One of `allowed`; anything else is an error listing the choices.
  std::optional<std::string> choice(std::string_view key, const std::vector<std::string>& allowed);
  std::optional<TableReader> table(std::string_view key);
  std::vector<TableReader> array_of_tables(std::string_view key);
  std::vector<std::string> strings(std::string_view key);
  // The raw node, for shapes the getters above don't cover.
  const toml::node* node(std::string_view key);

  // Number getters that also enforce a range.
  std::optional<double> number_in(std::string_view key, double lo, double hi);

  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const;
  // Throws ConfigError for the first key that no getter read.
  void finish() const;

  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const toml::table& raw() const { return *table_; }

 private:
  const toml::node* take(std::string_view key);
  const toml::table* table_;
  std::string file_;
  std::string where_;
  std::set<std::string, std::less<>> seen_;
};

// Parses a whole file; syntax errors become ConfigError with toml++'s position.
toml::table parse_toml_file(const std::string& path);

}  // namespace nvmond
