#pragma once
// The Device Self-test kinds and their one spelling. Configuration, control
// commands, the self-test log, the simulated drive and drive claims all read
// and write the text through this table, so code branches on the value.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_text.hpp"

namespace nvmond {

// A Device Self-test's Self-test Code (STC) as the command sends it.
enum class SelfTestKind : std::uint8_t { short_test = 0x1, extended_test = 0x2 };

inline constexpr std::array<std::pair<SelfTestKind, const char*>, 2> kSelfTestKindNames{{
    {SelfTestKind::short_test, "short"},
    {SelfTestKind::extended_test, "extended"},
}};

inline const char* self_test_kind_name(SelfTestKind kind) { return text_of(kSelfTestKindNames, kind, "short"); }

// nullopt for text that names no kind.
inline std::optional<SelfTestKind> self_test_kind_from_name(std::string_view name) {
  return value_of(kSelfTestKindNames, name);
}

// Every kind's text, in the table's order (configuration's allowed values).
inline std::vector<std::string> self_test_kind_names() {
  std::vector<std::string> names;
  for (const auto& [kind, name] : kSelfTestKindNames) names.emplace_back(name);
  return names;
}

}  // namespace nvmond
