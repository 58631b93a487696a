#include "runmodel/tracked_variable.hpp"

#include <array>
#include <utility>

#include "core/enum_text.hpp"

namespace nvmond {

namespace {

constexpr std::array<std::pair<TrackedVariable, const char*>, 3> kTrackedVariableNames{{
    {TrackedVariable::iops, "iops"},
    {TrackedVariable::bytes_per_second, "bytes_per_second"},
    {TrackedVariable::mean_latency, "mean_latency_s"},
}};

}  // namespace

const char* tracked_variable_name(TrackedVariable v) { return text_of(kTrackedVariableNames, v, "iops"); }

std::optional<TrackedVariable> tracked_variable_from_name(std::string_view name) {
  return value_of(kTrackedVariableNames, name);
}

}  // namespace nvmond
