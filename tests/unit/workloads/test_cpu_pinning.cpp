// Workers on CPUs of their own: the round-robin from the job's CPU, and a
// real bind checked with the kernel's own view of the thread.
#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

#include "workloads/cpu_pinning.hpp"

namespace nvmond {
namespace {

TEST(CpuPinning, WorkersStartOnTheJobsCpuAndTakeTheOthersInTurn) {
  const std::vector<int> cpus{0, 2, 5};
  EXPECT_EQ(worker_cpu(0, cpus, 2), 2);
  EXPECT_EQ(worker_cpu(1, cpus, 2), 5);
  EXPECT_EQ(worker_cpu(2, cpus, 2), 0);
  EXPECT_EQ(worker_cpu(3, cpus, 2), 2);  // more workers than CPUs: round-robin
  EXPECT_EQ(worker_cpu(0, cpus, 7), 0);  // started on a CPU it may not use
  EXPECT_FALSE(worker_cpu(0, {}, 0));    // affinity unknown: unpinned
}

TEST(CpuPinning, APinnedThreadRunsOnlyOnItsCpu) {
  const std::vector<int> cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  const int target = cpus.back();
  int seen = -1;
  int allowed = 0;
  std::thread t([&] {
    ASSERT_TRUE(pin_current_thread(target));
    allowed = static_cast<int>(allowed_cpus().size());
    seen = sched_getcpu();
  });
  t.join();
  EXPECT_EQ(allowed, 1);
  EXPECT_EQ(seen, target);
  EXPECT_FALSE(pin_current_thread(-1));
}

}  // namespace
}  // namespace nvmond
