#pragma once
// The PTS profile a test runs under. PTS 2.0.x is one specification with two
// sets of test conditions: Enterprise (PTS-E: active range 100 %, volatile
// write cache disabled, recommended load T4Q32) and Client (PTS-C: active
// range 75 %, write cache enabled, recommended load T2Q16), and each test
// says which of the two it belongs to. A profile names those conditions;
// which tests it has and their defaults are in the test schemas
// (profile_schema(), runmodel/request.hpp). Enterprise is the default everywhere.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvmond {

enum class PtsProfile { enterprise, client };

struct ProfileSpec {
  PtsProfile profile = PtsProfile::enterprise;
  const char* name = "";      // as the operator gives it: "enterprise", "client"
  const char* standard = "";  // "PTS-E 2.0.x"
  // The volatile write cache state the specification requires during a test.
  bool write_cache_enabled = false;
  // The active range the specification sets, as a fraction of the user
  // capacity from LBA 0: every test of the profile defaults its `range` to it.
  double active_range = 1.0;
};

const ProfileSpec& profile_spec(PtsProfile profile);
const char* profile_name(PtsProfile profile);
// Every profile's name, the default first.
const std::vector<std::string>& profile_names();
// nullopt for a name that is no profile.
std::optional<PtsProfile> profile_from_name(std::string_view name);

}  // namespace nvmond
