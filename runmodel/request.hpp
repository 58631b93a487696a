#pragma once
// A test's parameters as one declarative schema per test and a typed,
// validated request. The schema (key, type, default, range or allowed
// values, help) is what both validate() and build_plan() read, so what a
// config file, `--set` or the control socket may give and what a plan uses
// cannot drift. Validation needs no target: what depends on the drive (a
// default taken from its rating, capacity scaling) is settled when the run
// opens on it.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.hpp"
#include "runmodel/pts_profile.hpp"

namespace nvmond {

// KEY=VALUE text: what `--set`, the control protocol and run.json carry.
using ParamMap = std::map<std::string, std::string>;

// Thrown for an unknown test, an unknown key, a bad type or a value out of
// range; the message names the key.
class ParamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The order matches ParamValue's alternatives: a value's index is its type.
enum class ParamType { integer, number, boolean, bytes, duration, bytes_list, integer_list, choice };
const char* param_type_name(ParamType t);

using ParamValue = std::variant<std::int64_t, double, bool, std::uint64_t, Duration, std::vector<std::uint64_t>,
                                std::vector<std::int64_t>, std::string>;

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

struct ParamSpec {
  std::string key;
  ParamType type = ParamType::integer;
  // nullopt: the plan derives the default from the target (endurance's
  // dwpd from the drive's rating).
  std::optional<ParamValue> def;
  // integer, number, and each item of an integer list.
  double lo = -kUnbounded;
  double hi = kUnbounded;
  std::vector<std::string> allowed;  // choice
  std::string help;
};

struct TestSchema {
  std::string test;
  std::string help;
  std::vector<ParamSpec> params;
  // window and max_rounds form a steady-state rule: max_rounds is 0 or at
  // least the window.
  bool steady_state = false;
  // A test that is not a PTS test: what it rests on instead ("the seed
  // reviews' SLC-cache fill"). Empty for the PTS's tests.
  std::string basis{};
  const ParamSpec* find(const std::string& key) const;
};

// A test's schema under `profile`: the defaults its specification sets
// (active range, load); nullopt for a test the profile does not have.
// Enterprise: the schema as it is.
std::optional<TestSchema> profile_schema(const TestSchema& schema, PtsProfile profile);
// Throws ParamError for a name that is no profile, listing the profiles.
PtsProfile parse_profile(const std::string& name);

// What the operator gave, validated: only given keys, each typed by its spec.
struct TestRequest {
  std::string test;
  std::map<std::string, ParamValue> values;
  // The given values as their canonical text (the form run.json records).
  ParamMap text() const;
  // The profile whose schemas the values were checked against (last, so
  // that {test, values} stays a PTS-E request).
  PtsProfile profile = PtsProfile::enterprise;
};

// A value as a TOML table holds it; a string is parsed by the key's type.
using GivenValue = std::variant<std::string, std::int64_t, double, bool>;
using GivenParams = std::map<std::string, GivenValue>;

// Against `schema`, the test's under the request's profile (the list of
// tests, and so which schema a name has, is the tests' own: pts/catalog.hpp).
// Throw ParamError for an unknown key (listing the keys the test knows), a
// value of the wrong type or out of its range.
TestRequest validate_typed(const TestSchema& schema, const GivenParams& given, PtsProfile profile);
// The same checks of a request already typed (one a caller assembled rather
// than validate_typed() made): known keys, values of their key's type and in
// range. Throws ParamError.
void check_request(const TestSchema& schema, const TestRequest& request);

// The canonical text of a value: decimal integers and bytes, "{}" numbers,
// true/false, durations in seconds ("60s"), comma-joined lists.
std::string param_text(const ParamValue& v);
// Throws ParamError when `v` breaks the spec's range, sign or allowed values.
void check_value(const ParamSpec& spec, const ParamValue& v);

}  // namespace nvmond
