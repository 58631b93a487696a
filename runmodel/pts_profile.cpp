#include "runmodel/pts_profile.hpp"

#include <array>

namespace nvmond {

namespace {

// PTS 2.0.2 as py-sss-pts quotes it (run.py l.565, 580-584): "For PTS-E, WCD
// and AR=100. For PTS-C, WCE and AR=75."
constexpr std::array<ProfileSpec, 2> kProfiles = {{
    {PtsProfile::enterprise, "enterprise", "PTS-E 2.0.x", false, 1.0},
    {PtsProfile::client, "client", "PTS-C 2.0.x", true, 0.75},
}};

}  // namespace

const ProfileSpec& profile_spec(PtsProfile profile) {
  for (const auto& p : kProfiles) {
    if (p.profile == profile) return p;
  }
  return kProfiles[0];
}

const char* profile_name(PtsProfile profile) { return profile_spec(profile).name; }

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& p : kProfiles) n.emplace_back(p.name);
    return n;
  }();
  return names;
}

std::optional<PtsProfile> profile_from_name(std::string_view name) {
  for (const auto& p : kProfiles) {
    if (name == p.name) return p.profile;
  }
  return std::nullopt;
}

}  // namespace nvmond
