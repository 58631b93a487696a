// Injected faults, shared by every SimDevice handle over one model.
#include "sim/drive_model.hpp"

namespace nvmond {

// ---- faults --------------------------------------------------------------

SimFault DriveModel::fault() const {
  std::lock_guard lock(mu_);
  return fault_;
}

void DriveModel::set_fault(SimFault fault) {
  {
    std::lock_guard lock(mu_);
    fault_ = fault;
    // The sensor sticks at what it read when it failed, until it is fixed.
    if (fault != SimFault::stuck_temperature) {
      stuck_temp_c_.reset();
    } else if (!stuck_temp_c_) {
      stuck_temp_c_ = p_.temp_c;
    }
  }
  hang_cv_.notify_all();
}

void DriveModel::release_hangs() {
  {
    std::lock_guard lock(mu_);
    hangs_released_ = true;
  }
  hang_cv_.notify_all();
}

void DriveModel::wait_if_hung() const {
  std::unique_lock lock(mu_);
  if (fault_ != SimFault::hang || hangs_released_) return;
  ++hung_calls_;
  hang_cv_.wait_for(lock, spec_.hang, [&] { return fault_ != SimFault::hang || hangs_released_; });
  --hung_calls_;
}

int DriveModel::hung_calls() const {
  std::lock_guard lock(mu_);
  return hung_calls_;
}
}  // namespace nvmond
