#include "runmodel/tracked_variable.hpp"

#include <array>
#include <utility>

namespace nvmond {

namespace {

constexpr std::array<std::pair<TrackedVariable, const char*>, 3> kTrackedVariableNames{{
    {TrackedVariable::iops, "iops"},
    {TrackedVariable::bytes_per_second, "bytes_per_second"},
    {TrackedVariable::mean_latency, "mean_latency_s"},
}};

}  // namespace

const char* tracked_variable_name(TrackedVariable v) {
  for (const auto& [k, name] : kTrackedVariableNames) {
    if (k == v) return name;
  }
  return "iops";
}

std::optional<TrackedVariable> tracked_variable_from_name(std::string_view name) {
  for (const auto& [k, n] : kTrackedVariableNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

}  // namespace nvmond
