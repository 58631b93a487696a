#include "core/json_keys.hpp"

#include <fmt/format.h>

namespace nvmond::json_keys {

using nlohmann::json;

void bad(const std::string& key, const std::string& expected) {
  throw DecodeError(fmt::format("\"{}\": expected {}", key, expected));
}

const json& need(const json& j, const std::string& key, const std::string& expected) {
  if (!j.is_object() || !j.contains(key)) bad(key, expected);
  return j.at(key);
}

std::string string_of(const json& j, const std::string& key, const std::string& expected) {
  const json& v = need(j, key, expected);
  if (!v.is_string()) bad(key, expected);
  return v.get<std::string>();
}

std::int64_t integer_of(const json& j, const std::string& key, const std::string& expected) {
  const json& v = need(j, key, expected);
  if (!v.is_number_integer()) bad(key, expected);
  return v.get<std::int64_t>();
}

bool bool_of(const json& j, const std::string& key) {
  const json& v = need(j, key, "true or false");
  if (!v.is_boolean()) bad(key, "true or false");
  return v.get<bool>();
}

const json& array_of(const json& j, const std::string& key) {
  const json& v = need(j, key, "an array");
  if (!v.is_array()) bad(key, "an array");
  return v;
}

std::optional<double> number_or_null(const json& j, const std::string& key) {
  const json& v = need(j, key, "a number or null");
  if (v.is_null()) return std::nullopt;
  if (!v.is_number()) bad(key, "a number or null");
  return v.get<double>();
}

std::optional<std::int64_t> integer_or_null(const json& j, const std::string& key, const std::string& expected) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return integer_of(j, key, expected);
}

}  // namespace nvmond::json_keys
