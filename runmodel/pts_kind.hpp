#pragma once
// Which test a run is, as a value code can switch on. The run model holds it
// (not pts/) because the schemas, nvmonctl and the report read it without
// linking the tests; its text form lives only in pts_kind.cpp, the one
// table requests, run.json and the store are decoded through.
#include <optional>
#include <string_view>

namespace nvmond {

// In documentation order: test_schemas() lists them so.
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
