// Workers on CPUs of their own: the round-robin from the job's CPU, and a
// real bind checked with the kernel's own view of the thread.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <thread>

#include "workloads/cpu_pinning.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

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

TEST(CpuPinning, ABindingNeedsHalfACpuLeftOverAtTheHostsLoad) {
  EXPECT_TRUE(cpus_to_spare(0.0, 2));
  EXPECT_TRUE(cpus_to_spare(1.5, 2));
  EXPECT_FALSE(cpus_to_spare(1.6, 2));
  EXPECT_FALSE(cpus_to_spare(12.0, 2));
  EXPECT_TRUE(cpus_to_spare(0.4, 1));
  EXPECT_FALSE(cpus_to_spare(0.6, 1));
  EXPECT_TRUE(cpus_to_spare(30.0, 64));
}

// The kernel's view of the thread after each decision: bound to its one CPU
// on a quiet host, free on all of them on a busy one, and bound again when
// the load falls.
TEST(CpuPinning, AWorkerIsBoundOnlyWhileTheHostHasCpusToSpare) {
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs to tell bound from free";
  std::vector<std::size_t> seen;
  std::vector<bool> bound;
  std::thread t([&] {
    CpuPlacement p(cpus.back(), cpus);
    for (double load : {0.2, 40.0, 40.0, 0.3}) {
      p.apply(load);
      seen.push_back(allowed_cpus().size());
      bound.push_back(p.bound());
    }
  });
  t.join();
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, cpus.size(), cpus.size(), 1}));
  EXPECT_EQ(bound, (std::vector<bool>{true, false, false, true}));
}

TEST(CpuPinning, AWorkerWithoutACpuIsNeverBound) {
  const std::vector<int> cpus = allowed_cpus();
  std::size_t seen = 0;
  std::thread t([&] {
    CpuPlacement p(std::nullopt, cpus);
    p.apply(0.0);
    seen = allowed_cpus().size();
    EXPECT_FALSE(p.bound());
  });
  t.join();
  EXPECT_EQ(seen, cpus.size());
}

// se.slice of the calling thread in ns as the kernel reports it; 0 when the
// kernel does not report one (before EEVDF).
std::uint64_t own_slice_ns() {
  std::ifstream f("/proc/thread-self/sched");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("se.slice", 0) == 0) return std::stoull(line.substr(line.find(':') + 1));
  }
  return 0;
}

TEST(CpuPinning, AWorkerAsksForShortTurnsAndKeepsItsNiceValue) {
  std::uint64_t before = 0, after = 0;
  int nice = 0;
  bool granted = false;
  std::thread t([&] {
    ASSERT_EQ(setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 3), 0);
    before = own_slice_ns();
    granted = request_short_slice(std::chrono::microseconds(100));
    after = own_slice_ns();
    nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
  });
  t.join();
  if (before == 0) GTEST_SKIP() << "kernel reports no se.slice";
  ASSERT_TRUE(granted);
  EXPECT_EQ(after, 100'000u);
  EXPECT_NE(before, after);
  EXPECT_EQ(nice, 3);
}

TEST(CpuPinning, ABatchThreadIsLeftAsItIs) {
  int policy = -1;
  bool granted = true;
  std::thread t([&] {
    sched_param p{};
    ASSERT_EQ(sched_setscheduler(0, SCHED_BATCH, &p), 0);
    granted = request_short_slice(std::chrono::microseconds(100));
    policy = sched_getscheduler(0);
  });
  t.join();
  EXPECT_FALSE(granted);
  EXPECT_EQ(policy, SCHED_BATCH);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
