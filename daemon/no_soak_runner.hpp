#pragma once
// The SoakControl of a daemon whose run store cannot be opened: every run
// request fails, saying why, and there is no history. The control socket,
// the scheduler and nvmonctl keep working around it.
#include <string>

#include "schedule/soak_control.hpp"

namespace nvmond {

class NoSoakRunner final : public SoakControl {
 public:
  explicit NoSoakRunner(std::string why) : why_(std::move(why)) {}
  Result<std::int64_t> start(const SoakRequest& r) override {
    return Error{"unsupported", "cannot start " + r.test + " on " + r.target + ": " + why_};
  }
  Result<std::monostate> stop(std::int64_t run) override { return absent(run); }
  Result<std::monostate> pause(std::int64_t run) override { return absent(run); }
  Result<std::monostate> resume(std::int64_t run) override { return absent(run); }
  std::vector<RunView> active() const override { return {}; }
  Result<std::vector<RunView>> history(const std::optional<std::string>&) const override { return std::vector<RunView>{}; }
  Result<RunDetail> show(std::int64_t run, const RoundPage&) const override { return absent(run); }

 private:
  std::string why_;
  static Error absent(std::int64_t run) { return Error{"absent", "no run " + std::to_string(run)}; }
};

}  // namespace nvmond
