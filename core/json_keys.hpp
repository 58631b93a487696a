#pragma once
// Reading the keys of a JSON object that a codec requires, with one error
// shape for every codec: `"key": expected a string`. The control protocol
// prefixes the path of an element ("runs[2].status"), the run model's codec
// returns the text as an Error; both read through these.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace nvmond::json_keys {

// What every reader below throws; its text names the key and what it needed.
class DecodeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

[[noreturn]] void bad(const std::string& key, const std::string& expected);

// The value of `key`; an error when `j` is no object or lacks the key.
const nlohmann::json& need(const nlohmann::json& j, const std::string& key, const std::string& expected);

std::string string_of(const nlohmann::json& j, const std::string& key, const std::string& expected);
std::int64_t integer_of(const nlohmann::json& j, const std::string& key, const std::string& expected);
bool bool_of(const nlohmann::json& j, const std::string& key);
const nlohmann::json& array_of(const nlohmann::json& j, const std::string& key);
// null (a value the sender did not have, or not finite) or a number.
std::optional<double> number_or_null(const nlohmann::json& j, const std::string& key);
// An absent key or null is nullopt.
std::optional<std::int64_t> integer_or_null(const nlohmann::json& j, const std::string& key,
                                            const std::string& expected);

}  // namespace nvmond::json_keys
