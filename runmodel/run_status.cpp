#include "runmodel/run_status.hpp"

#include <fmt/core.h>

#include <utility>

namespace nvmond {

namespace {

template <typename Enum>
using TextTable = std::pair<Enum, std::string_view>;

constexpr TextTable<RunStatus> kRunStatusText[] = {
    {RunStatus::running, "running"},         {RunStatus::paused, "paused"}, {RunStatus::completed, "completed"},
    {RunStatus::interrupted, "interrupted"}, {RunStatus::failed, "failed"},
};

constexpr TextTable<ScheduleState> kScheduleStateText[] = {
    {ScheduleState::idle, "idle"},       {ScheduleState::scheduled, "scheduled"},
    {ScheduleState::queued, "queued"},   {ScheduleState::waiting_cool, "waiting-cool"},
    {ScheduleState::opening, "opening"}, {ScheduleState::running, "running"},
    {ScheduleState::paused, "paused"},   {ScheduleState::failed, "failed"},
};

template <typename Enum, std::size_t N>
std::string_view text_of(const TextTable<Enum> (&table)[N], Enum value) {
  for (const auto& [v, text] : table) {
    if (v == value) return text;
  }
  return "?";  // unreachable: every enumerator has a row
}

template <typename Enum, std::size_t N>
Result<Enum> value_of(const TextTable<Enum> (&table)[N], std::string_view text, std::string_view what) {
  std::string known;
  for (const auto& [v, t] : table) {
    if (t == text) return v;
    known += (known.empty() ? "" : ", ") + std::string(t);
  }
  return Error{ErrorReason::decode, fmt::format("unknown {} \"{}\" (expected one of {})", what, text, known)};
}

}  // namespace

std::string_view to_text(RunStatus status) { return text_of(kRunStatusText, status); }

Result<RunStatus> run_status_from_text(std::string_view text) { return value_of(kRunStatusText, text, "run status"); }

RunStatus stored_status(StopAs as) { return as == StopAs::paused ? RunStatus::running : RunStatus::interrupted; }

RunStatus outcome_status(StopAs as) { return as == StopAs::paused ? RunStatus::paused : RunStatus::interrupted; }

std::string_view to_text(ScheduleState state) { return text_of(kScheduleStateText, state); }

Result<ScheduleState> schedule_state_from_text(std::string_view text) {
  return value_of(kScheduleStateText, text, "schedule state");
}

}  // namespace nvmond
