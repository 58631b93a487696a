#pragma once
// What the Fleet tests share: a Fleet's surroundings on a ManualClock (a real
// SQLite history in a temp dir, the published metrics) and a way to run the
// event loop until the device threads have answered. A fixture deriving from
// it declares its Fleet last, after the configuration and devices the Fleet
// references, so that the Fleet goes first.
#include <gtest/gtest.h>

#include "polling/fleet.hpp"
#include "store/resilient_store.hpp"
#include "store/sqlite_backend.hpp"
#include "tests/support/samples.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond::test {

struct FleetHarness {
  explicit FleetHarness(const char* prefix) : dir(prefix) {}

  TempDir dir;
  boost::asio::io_context io;
  ManualClock clock;
  SystemClock retry_clock;  // the store's retries, as in the daemon
  ResilientStore store{std::make_unique<SqliteBackend>(dir.path()), retry_clock};
  PublishedMetrics out;

  double up(const std::string& serial) const { return sample(out.Collect(), "nvme_up", {{"serial", serial}}); }
  // Runs what is due, then the loop until `done` (device threads answer on
  // their own time; 10 s without any event fails the test).
  template <typename Done>
  void run_until(Done done) {
    io.poll();
    while (!done()) ASSERT_EQ(io.run_one_for(std::chrono::seconds(10)), 1u) << "no answer from the device threads";
  }
};

}  // namespace nvmond::test
