#pragma once
// A value inside a JSON document and the path that reached it
// ("target.capacity_bytes", "rounds[3].ops.read"), so that a decoding error
// names the field wherever it surfaces: the store's log, the report, nvmonctl.
// Two kinds of accessor: the required ones (`at`, `as`, `array()`) fail on an
// absent key or a value of the wrong type; the optional ones (`number`,
// `text`, `flag`, `object`, `array(key)`) read an absent or null key as not
// there, and still fail on a value of the wrong type.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/json_keys.hpp"

namespace nvmond::json_keys {

struct Path {
  const nlohmann::json& j;
  std::string path;

  // Throws DecodeError("path: what"); "(top level)" for the document itself.
  [[noreturn]] void fail(const std::string& what) const;

  // Present and not null.
  bool has(const char* key) const;
  // Required: an object holding `key`.
  Path at(const char* key) const;
  Path at(std::size_t i) const;
  // Required: this value is an array.
  const nlohmann::json& array() const;

  template <typename T>
  T as() const {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!j.is_string()) fail("expected a string");
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!j.is_boolean()) fail("expected true or false");
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!j.is_number()) fail("expected a number");
    } else if constexpr (std::is_unsigned_v<T>) {
      if (!j.is_number_unsigned()) fail("expected an unsigned integer");
    } else {
      if (!j.is_number_integer()) fail("expected an integer");
    }
    return j.get<T>();
  }

  // Optional: NaN (no value) for an absent, null or non-finite number.
  double number(const char* key) const;
  std::string text(const char* key) const;  // "" when absent
  bool flag(const char* key) const;         // false when absent
  std::optional<Path> object(const char* key) const;
  std::vector<Path> array(const char* key) const;  // empty when absent
};

// Optional, with what an absent or null key reads as.
double number_or(const Path& n, const char* key, double absent);
// A count or an index, also where a writer put it as a JSON float; a
// negative one fails.
std::uint64_t count_or(const Path& n, const char* key, std::uint64_t absent = 0);
// Arrays of them; empty when absent.
std::vector<std::uint64_t> counts(const Path& n, const char* key);
std::vector<double> numbers(const Path& n, const char* key);

}  // namespace nvmond::json_keys
