#include "services/targets.hpp"

#include <fmt/core.h>

#include "collectors/nvme/nvme_namespace.hpp"
#include "engines/registry.hpp"
#include "pts/targets/device_target.hpp"
#include "pts/targets/sim_target.hpp"
#include "collectors/sim_name.hpp"

namespace nvmond {

Result<std::unique_ptr<TestTarget>> open_test_target(const std::string& target, const std::vector<SimSettings>& sims,
                                                     const SafetyGuard& guard, const SimModelLookup& models,
                                                     const Clock* pace) {
  const auto sim = sim_key(target);
  if (!sim) {
    auto t = DeviceTarget::open(
        target, guard, [](const std::string& path) { return open_nvme_namespace(path, std::chrono::seconds(10)); },
        make_engine_factory());
    if (!t) return t.error();
    return std::unique_ptr<TestTarget>(std::move(*t));
  }
  const std::string& key = *sim;
  // A fresh model starts at the daemon's time, not the host's: its rounds and
  // health samples are stamped with the model's clock, and a daemon on a
  // simulated or restored clock must not find host time in its runs.
  const WallTime start = pace != nullptr ? pace->wall() : std::chrono::system_clock::now();
  for (const auto& s : sims) {
    if (s.spec.name != key && s.spec.serial != key) continue;
    std::shared_ptr<DriveModel> model = models ? models(s.spec.serial) : nullptr;
    if (!model) model = std::make_shared<DriveModel>(s.spec, start);
    return std::unique_ptr<TestTarget>(std::make_unique<SimTarget>(model, pace));
  }
  for (const auto& profile : sim_profile_names()) {
    if (profile != key) continue;
    SimDriveSpec spec = sim_profile(profile);
    spec.name = profile;
    spec.serial = "SIM-" + profile;
    auto model = std::make_shared<DriveModel>(spec, start);
    return std::unique_ptr<TestTarget>(std::make_unique<SimTarget>(model, pace));
  }
  std::string known;
  for (const auto& p : sim_profile_names()) known += (known.empty() ? "" : ", ") + p;
  return Error{ErrorReason::unknown_device,
               fmt::format("no [[sim]] drive named \"{}\" and no such profile (profiles: {})", key, known)};
}

}  // namespace nvmond
