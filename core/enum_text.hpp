#pragma once
// An enum's text form as one table of {value, text} rows, read both ways.
// Text that runs, requests and the store carry is written and read only
// through its enum's table, so code branches on the value, and a value
// cannot get a second spelling somewhere else.
#include <optional>
#include <string_view>

namespace nvmond {

// The text of `value`'s row; `fallback` for a value without one.
template <typename Rows>
const char* text_of(const Rows& rows, typename Rows::value_type::first_type value, const char* fallback) {
  for (const auto& [v, text] : rows) {
    if (v == value) return text;
  }
  return fallback;
}

// The value whose row reads `text`; nullopt for text that is in no row.
template <typename Rows>
std::optional<typename Rows::value_type::first_type> value_of(const Rows& rows, std::string_view text) {
  for (const auto& [v, t] : rows) {
    if (text == t) return v;
  }
  return std::nullopt;
}

}  // namespace nvmond
