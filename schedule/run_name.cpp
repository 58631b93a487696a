#include "schedule/run_name.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace nvmond {

namespace {
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
}  // namespace

std::optional<std::string> run_name_problem(std::string_view name) {
  if (name.empty() || name.size() > kMaxRunNameLength) {
    return fmt::format("must be 1 to {} characters (got {})", kMaxRunNameLength, name.size());
  }
  if (!std::all_of(name.begin(), name.end(), [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; })) {
    return std::string("may contain only letters, digits, '-', '_' and '.'");
  }
  if (!alnum(name.front())) return std::string("must start with a letter or a digit");
  return std::nullopt;
}

}  // namespace nvmond
