#include "runmodel/test_kind.hpp"

#include <array>
#include <utility>

namespace nvmond {

namespace {

constexpr std::array<std::pair<TestKind, const char*>, 15> kNames{{
    {TestKind::purge, "purge"},
    {TestKind::precondition, "precondition"},
    {TestKind::iops, "iops"},
    {TestKind::throughput, "throughput"},
    {TestKind::latency, "latency"},
    {TestKind::wsat, "wsat"},
    {TestKind::mixed, "mixed"},
    {TestKind::vqd, "vqd"},
    {TestKind::cbw, "cbw"},
    {TestKind::dirth, "dirth"},
    {TestKind::slc, "slc"},
    {TestKind::qos, "qos"},
    {TestKind::endurance, "endurance"},
    {TestKind::hir, "hir"},
    {TestKind::xsr, "xsr"},
}};

}  // namespace

const char* test_kind_name(TestKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "";
}

std::optional<TestKind> test_kind_from_name(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

}  // namespace nvmond
