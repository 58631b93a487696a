#include "runmodel/stage_phase.hpp"

#include <array>
#include <utility>

#include "core/enum_text.hpp"

namespace nvmond {

namespace {

constexpr std::array<std::pair<Phase, const char*>, 4> kPhaseNames{{
    {Phase::precondition, "precondition"},
    {Phase::test, "test"},
    {Phase::histogram, "histogram"},
    {Phase::prewrite, "prewrite"},
}};

}  // namespace

const char* phase_name(Phase phase) { return text_of(kPhaseNames, phase, "test"); }

std::optional<Phase> phase_from_name(std::string_view name) { return value_of(kPhaseNames, name); }

}  // namespace nvmond
