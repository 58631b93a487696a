#pragma once
// Which test a run is, as a value code can switch on: the tests some code
// treats apart (the report's own sections). The run model holds it (not
// pts/) because the report reads it without linking the tests; its text
// form lives only in pts_kind.cpp. A test nothing treats apart has no kind
// (test_kind_from_name gives nullopt) and needs none.
#include <optional>
#include <string_view>

namespace nvmond {

// In documentation order.
enum class TestKind {
  purge,
  precondition,
  iops,
  throughput,
  latency,
  wsat,
  mixed,
  vqd,
  cbw,
  dirth,
  slc,
  qos,
  endurance,
  hir,
  xsr
};

const char* test_kind_name(TestKind kind);
// nullopt for a name that is no test (an old run's, or a typo).
std::optional<TestKind> test_kind_from_name(std::string_view name);

}  // namespace nvmond
