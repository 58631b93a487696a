// The defaults a profile other than PTS-E sets for the tests it has.
#include <stdexcept>
#include <utility>
#include <vector>

#include "runmodel/request.hpp"

namespace nvmond {

namespace {

constexpr std::uint64_t KiB = 1024;

// A test of a profile other than PTS-E: the defaults its specification sets
// that differ from the test's PTS-E ones. `range` is always the profile's
// active range and is not listed.
struct ProfileTest {
  const char* test;
  std::vector<std::pair<std::string, ParamValue>> defaults;
};

// PTS-C 2.0.x: the tests PTS 2.0.x gives Client settings that nvmond runs as
// the specification does (docs/pts.md, "The Client profile").
std::vector<ProfileTest> client_tests() {
  const ParamValue t2{std::int64_t{2}};
  const ParamValue q16{std::int64_t{16}};
  return {
      // The recommended PTS-C load, T2Q16 (PTS-E: T4Q32).
      {"iops", {{"threads", t2}, {"queue_depth", q16}}},
      // PTS-C has the 1024 KiB sub-test only; the load stays one sequential
      // stream, T1Q32, as for PTS-E.
      {"throughput", {{"block_sizes", std::vector<std::uint64_t>{1024 * KiB}}}},
      // T1Q1 in both profiles.
      {"latency", {}},
      {"wsat", {{"threads", t2}, {"queue_depth", q16}}},
  };
}

TestSchema with_profile_defaults(TestSchema s, const ProfileSpec& profile, const ProfileTest& t) {
  auto set = [&s](const std::string& key, const ParamValue& v) {
    for (auto& p : s.params) {
      if (p.key != key) continue;
      if (v.index() != static_cast<std::size_t>(p.type)) {
        throw std::logic_error("profile default " + s.test + "." + key + " is not a " + param_type_name(p.type));
      }
      check_value(p, v);
      p.def = v;
      return;
    }
    throw std::logic_error("profile default " + s.test + "." + key + ": the test has no such parameter");
  };
  set("range", ParamValue{profile.active_range});
  for (const auto& [key, value] : t.defaults) set(key, value);
  return s;
}

}  // namespace

std::optional<TestSchema> profile_schema(const TestSchema& schema, PtsProfile profile) {
  if (profile == PtsProfile::enterprise) return schema;
  static const std::vector<ProfileTest> client = client_tests();
  for (const auto& t : client) {
    if (schema.test == t.test) return with_profile_defaults(schema, profile_spec(profile), t);
  }
  return std::nullopt;
}

}  // namespace nvmond
