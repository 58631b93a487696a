#include "drivelog/self_test_pacing.hpp"

#include <algorithm>

namespace nvmond {

SelfTestPacing::SelfTestPacing(Duration poll_interval) {
  const auto interval = std::max<Duration::rep>(poll_interval.count(), 1);
  // At most once per kIdleSelfTestRead: round the poll count up.
  idle_polls_ = static_cast<std::uint64_t>(
      std::max<Duration::rep>((Duration(kIdleSelfTestRead).count() + interval - 1) / interval, 1));
}

bool SelfTestPacing::due() {
  ++since_read_;
  if (!due_now_ && !running_ && since_read_ < idle_polls_) return false;
  due_now_ = false;
  since_read_ = 0;
  return true;
}

void SelfTestPacing::read(const SelfTestLog& log) { running_ = log.running(); }

}  // namespace nvmond
