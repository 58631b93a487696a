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

// "500ms", "10s", "5m", "2h", "7d" or a bare number of seconds. nullopt when
// malformed or beyond what a Duration holds (about 292 years).
std::optional<Duration> parse_duration(std::string_view text);
// "4096", "4KiB", "1MiB", "3.84TB", "512GB" (SI and IEC suffixes). nullopt
// when malformed, negative or beyond 2^64.
std::optional<std::uint64_t> parse_bytes(std::string_view text);

// What a numeric key accepts, declared once beside the key (a table per
// area): finite and in [lo, hi]. `unit` (as docs/configuration.md writes it) follows the
// bounds in messages: "must be between -40 and 100 °C".
struct NumberRange {
  double lo;
  double hi;
  std::string_view unit = {};
};
struct IntegerRange {
  std::int64_t lo;
  std::int64_t hi;
};
struct DurationRange {
  Duration lo;
  Duration hi;
};
// Bytes, and bytes per second for rates.
struct ByteRange {
  std::uint64_t lo;
  std::uint64_t hi;
};

// For the keys that have no narrower physical bound: whatever the types hold
// without overflow (100 years; 1 EiB).
inline constexpr DurationRange kAnyDuration{Duration::zero(), std::chrono::hours(24 * 36500)};
inline constexpr ByteRange kAnyBytes{0, 1ULL << 60};

// "100ms", "1d", "90us": the largest unit that divides `d`.
std::string format_duration(Duration d);
// "64MiB", "1PB", "4096": IEC or SI when one divides `bytes`, else plain bytes.
std::string format_bytes(std::uint64_t bytes);

class TableReader {
 public:
  // `where` is the dotted path of this table, used in messages ("device[1]").
  TableReader(const toml::table& table, std::string file, std::string where);

  std::optional<std::string> string(std::string_view key);
  // Integer or float; nan and inf are errors, so is a value outside `range`.
  std::optional<double> number(std::string_view key, const NumberRange& range);
  std::optional<double> number(std::string_view key);  // finite, any value
  std::optional<std::int64_t> integer(std::string_view key, const IntegerRange& range);
  std::optional<std::int64_t> integer(std::string_view key);
  std::optional<bool> boolean(std::string_view key);
  // Number of seconds or a duration string, in `range`.
  std::optional<Duration> duration(std::string_view key, const DurationRange& range = kAnyDuration);
  // Integer bytes or a size string, in `range`.
  std::optional<std::uint64_t> bytes(std::string_view key, const ByteRange& range = kAnyBytes);
  // An endurance such as rated TBW: a number is terabytes (10^12 bytes), a
  // string a size ("600TB"); in `range` (bytes) either way.
  std::optional<std::uint64_t> terabytes(std::string_view key, const ByteRange& range);
  // Bytes per second: a number, or a size string with an optional "/s"
  // ("50MB/s", "50MB"), in `range`.
  std::optional<double> rate(std::string_view key, const ByteRange& range);
  // One of `allowed`; anything else is an error listing the choices.
  std::optional<std::string> choice(std::string_view key, const std::vector<std::string>& allowed);
  std::optional<TableReader> table(std::string_view key);
  std::vector<TableReader> array_of_tables(std::string_view key);
  std::vector<std::string> strings(std::string_view key);
  // The raw node, for shapes the getters above don't cover.
  const toml::node* node(std::string_view key);

  // Kept for callers written before NumberRange.
  std::optional<double> number_in(std::string_view key, double lo, double hi) {
    return number(key, NumberRange{lo, hi});
  }

  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const;
  // "VALUE is out of range: must be between LO and HI".
  [[noreturn]] void fail_range(std::string_view key, const std::string& shown, const std::string& lo,
                               const std::string& hi) const;
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
// Anything but a regular file (a directory, a FIFO) or a missing file is a
// ConfigError naming the path.
toml::table parse_toml_file(const std::string& path);

}  // namespace nvmond
