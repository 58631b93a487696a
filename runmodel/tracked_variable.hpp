#pragma once
// The value of an element that a steady-state rule follows. Run.json records
// it as text; that text is read and written only through this table, so the
// report branches on the value and not on how run.json spells it.
#include <optional>
#include <string_view>

namespace nvmond {

enum class TrackedVariable { iops, bytes_per_second, mean_latency };

const char* tracked_variable_name(TrackedVariable v);
// nullopt for text that is no variable (empty in runs before it was recorded).
std::optional<TrackedVariable> tracked_variable_from_name(std::string_view name);

}  // namespace nvmond
