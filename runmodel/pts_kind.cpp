#include "runmodel/pts_kind.hpp"

#include <array>
#include <utility>

#include "core/enum_text.hpp"

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

const char* test_kind_name(TestKind kind) { return text_of(kNames, kind, ""); }

std::optional<TestKind> test_kind_from_name(std::string_view name) { return value_of(kNames, name); }

}  // namespace nvmond
