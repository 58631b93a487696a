#pragma once
// The message of the ConfigError that `parse` throws, or "(no error)" when it
// returns: config tests compare messages (file:line:col and wording) exactly.
#include <string>
#include <utility>

#include "core/config_reader.hpp"

namespace nvmond::test {

template <typename Parse>
std::string config_error_of(Parse&& parse) {
  try {
    std::forward<Parse>(parse)();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace nvmond::test
