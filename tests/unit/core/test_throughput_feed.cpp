// ThroughputFeed: workloads report per drive from their own threads, the
// drive's poller takes what ended by its poll, in time order, and a drive
// nobody polls cannot grow without bound.
#include "core/throughput_feed.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

// Written as the header tells the soak runner to report a round.
WorkloadThroughput at(const std::string& serial, WallTime end, double bps = 1e9, std::string workload = "job:w") {
  return {.serial = serial,
          .workload = std::move(workload),
          .interval_end = end,
          .interval = 1s,
          .bytes_per_second = bps,
          .fixed = true};
}

TEST(ThroughputFeed, TakesOnlyTheDrivesSamplesThatEndedByThePollOldestFirst) {
  ThroughputFeed feed;
  const WallTime t0 = WallTime{} + 1000h;
  feed.report(at("A", t0 + 2s, 2));
  feed.report(at("B", t0 + 1s, 9));
  feed.report(at("A", t0 + 1s, 1, "job:other"));  // a second workload, reported late
  feed.report(at("A", t0 + 3s, 3));

  auto first = feed.take("A", t0 + 2s);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].bytes_per_second, 1);
  EXPECT_EQ(first[0].workload, "job:other");
  EXPECT_EQ(first[1].bytes_per_second, 2);
  auto rest = feed.take("A", t0 + 10s);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].bytes_per_second, 3);
  EXPECT_TRUE(feed.take("A", t0 + 10s).empty());
  EXPECT_EQ(feed.take("B", t0 + 10s).size(), 1u);
  EXPECT_TRUE(feed.take("nobody", t0 + 10s).empty());
}

TEST(ThroughputFeed, SamplesWithoutADriveAreIgnored) {
  ThroughputFeed feed;
  feed.report(at("", WallTime{} + 1s));
  EXPECT_TRUE(feed.take("", WallTime::max()).empty());
  EXPECT_EQ(feed.dropped(), 0u);
}

TEST(ThroughputFeed, ADriveNobodyPollsKeepsOnlyTheNewestSamples) {
  ThroughputFeed feed(4);
  for (int i = 1; i <= 10; ++i) feed.report(at("A", WallTime{} + std::chrono::seconds(i), i));
  EXPECT_EQ(feed.dropped(), 6u);
  auto kept = feed.take("A", WallTime::max());
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.front().bytes_per_second, 7);
  EXPECT_EQ(kept.back().bytes_per_second, 10);
}

TEST(ThroughputFeed, ConcurrentReportersLoseNothingAndEachTakeIsInTimeOrder) {
  ThroughputFeed feed(1'000'000);
  constexpr int kThreads = 4, kEach = 5000;
  std::vector<std::thread> writers;
  for (int w = 0; w < kThreads; ++w) {
    writers.emplace_back([&feed, w] {
      for (int i = 0; i < kEach; ++i) {
        feed.report(at("A", WallTime{} + std::chrono::milliseconds(i * kThreads + w), 1, "job:" + std::to_string(w)));
      }
    });
  }
  std::size_t taken = 0;
  // Each take is in time order (a writer that lags may still add older
  // samples after a take: the next take has them).
  auto take = [&](WallTime upto) {
    WallTime last{};
    for (const auto& x : feed.take("A", upto)) {
      EXPECT_GE(x.interval_end, last);
      EXPECT_LE(x.interval_end, upto);
      last = x.interval_end;
      ++taken;
    }
  };
  for (int round = 0; round < 50; ++round) take(WallTime{} + std::chrono::milliseconds(round * 400));
  for (auto& t : writers) t.join();
  take(WallTime::max());
  EXPECT_EQ(taken, static_cast<std::size_t>(kThreads * kEach));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
