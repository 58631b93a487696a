#include "runmodel/stage_phase.hpp"

#include <array>
#include <utility>

namespace nvmond {

namespace {

constexpr std::array<std::pair<Phase, const char*>, 4> kPhaseNames{{
    {Phase::precondition, "precondition"},
    {Phase::test, "test"},
    {Phase::histogram, "histogram"},
    {Phase::prewrite, "prewrite"},
}};

}  // namespace

const char* phase_name(Phase phase) {
  for (const auto& [p, name] : kPhaseNames) {
    if (p == phase) return name;
  }
  return "test";
}

std::optional<Phase> phase_from_name(std::string_view name) {
  for (const auto& [p, n] : kPhaseNames) {
    if (n == name) return p;
  }
  return std::nullopt;
}

}  // namespace nvmond
