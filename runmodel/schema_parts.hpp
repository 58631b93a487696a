#pragma once
// What a test's schema is declared with (each test's own in
// pts/tests/<family>.cpp): a parameter of each type, the parameters every
// measuring test shares with that test's defaults, and the marks a schema
// may carry. In the run model, beside the types and their validation, so
// that what declares a parameter and what checks one cannot drift.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runmodel/request.hpp"

namespace nvmond::schema_parts {

ParamSpec integer(std::string key, std::int64_t def, double lo, double hi, std::string help);
ParamSpec number(std::string key, std::optional<double> def, double lo, double hi, std::string help);
ParamSpec boolean(std::string key, bool def, std::string help);
ParamSpec bytes(std::string key, std::uint64_t def, std::string help);
ParamSpec duration(std::string key, Duration def, std::string help);
ParamSpec bytes_list(std::string key, std::vector<std::uint64_t> def, std::string help);
ParamSpec integer_list(std::string key, std::vector<std::int64_t> def, double hi, std::string help);
ParamSpec choice(std::string key, std::string def, std::vector<std::string> allowed, std::string help);

// The defaults a measuring test gives its shared parameters.
struct CommonDefaults {
  std::int64_t threads;
  std::int64_t queue_depth;
  Duration round;
  bool purge;
  bool precondition;
  std::int64_t max_rounds;
};

// A measuring test: the shared parameters (load, round, range, purge, the
// steady-state window, the workload-independent preconditioning's), then
// its own.
TestSchema measuring(std::string help, const CommonDefaults& d, std::vector<ParamSpec> own, bool steady_state);
// A test that is not a PTS test, and what it rests on instead.
TestSchema not_pts(TestSchema s, std::string basis);
// A test whose preconditioning is its own workload (CBW, DIRTH, HIR): no SEQ
// WIPC, so none of its keys, and `precondition` says what it does instead.
TestSchema with_own_preconditioning(TestSchema s, const std::string& help);

}  // namespace nvmond::schema_parts
