#pragma once
// The SoakControl of a build without the PTS soak runner (issue 10, branch
// pts): every run request fails, saying so, and there is no history. The
// control socket, the scheduler and nvmonctl work in full around it.
#include "schedule/soak_control.hpp"

namespace nvmond {

class NoSoakRunner final : public SoakControl {
 public:
  Result<std::int64_t> start(const SoakRequest& r) override {
    return Error{"unsupported", "cannot start " + r.test + " on " + r.target + ": this nvmond has no PTS soak runner"};
  }
  Result<std::monostate> stop(std::int64_t run) override { return absent(run); }
  Result<std::monostate> pause(std::int64_t run) override { return absent(run); }
  Result<std::monostate> resume(std::int64_t run) override { return absent(run); }
  std::vector<RunView> active() const override { return {}; }
  Result<std::vector<RunView>> history(const std::optional<std::string>&) const override { return std::vector<RunView>{}; }
  Result<RunDetail> show(std::int64_t run) const override { return absent(run); }

 private:
  static Error absent(std::int64_t run) { return Error{"absent", "no run " + std::to_string(run)}; }
};

}  // namespace nvmond
