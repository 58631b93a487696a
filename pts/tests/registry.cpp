#include <stdexcept>
#include <string>

#include "pts/tests/definition.hpp"

namespace nvmond {

// Each test's file gives its definition; this list is the one place that
// names them all.
TestDefinition purge_test();
TestDefinition precondition_test();
TestDefinition iops_test();
TestDefinition throughput_test();
TestDefinition latency_test();
TestDefinition wsat_test();
TestDefinition mixed_test();
TestDefinition vqd_test();
TestDefinition cbw_test();
TestDefinition dirth_test();
TestDefinition slc_test();
TestDefinition qos_test();
TestDefinition endurance_test();
TestDefinition hir_test();
TestDefinition xsr_test();

namespace {

std::vector<TestDefinition> registered() {
  return {purge_test(), precondition_test(), iops_test(),      throughput_test(), latency_test(),
          wsat_test(),  mixed_test(),        vqd_test(),       cbw_test(),        dirth_test(),
          slc_test(),   qos_test(),          endurance_test(), hir_test(),        xsr_test()};
}

// The schemas' order is the definitions' order, so that a definition
// missing, twice, or out of place fails here, at the first plan, and in the
// unit tests, not at one run's start.
std::vector<TestDefinition> checked(std::vector<TestDefinition> defs) {
  const auto& schemas = test_schemas();
  if (defs.size() != schemas.size()) {
    throw std::logic_error(std::to_string(schemas.size()) + " test schemas and " + std::to_string(defs.size()) +
                           " test definitions");
  }
  for (std::size_t i = 0; i < defs.size(); ++i) {
    if (defs[i].kind != schemas[i].kind || defs[i].build == nullptr) {
      throw std::logic_error(std::string("test definition ") + defs[i].name() + " is not schema " + schemas[i].test +
                             "'s, or has no plan");
    }
  }
  return defs;
}

}  // namespace

const std::vector<TestDefinition>& test_definitions() {
  static const std::vector<TestDefinition> defs = checked(registered());
  return defs;
}

const TestDefinition& test_definition(TestKind kind) {
  for (const auto& d : test_definitions()) {
    if (d.kind == kind) return d;
  }
  throw std::logic_error(std::string("test ") + test_kind_name(kind) + " has a schema and no definition");
}

}  // namespace nvmond
