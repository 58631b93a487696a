#pragma once
// One poll of a DevicePoller on a ManualClock, run to its end: the due tick
// runs, the worker's observer counts the poll (10 s at most, so a poller that
// never polls fails its test rather than hanging it), and the outcome comes
// back on the loop, so that the next tick is not skipped as in flight.
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <chrono>

namespace nvmond::test {

inline void run_one_poll(boost::asio::io_context& io, const std::atomic<int>& polls) {
  using namespace std::chrono_literals;
  const int before = polls.load();
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  io.poll();
  while (polls.load() == before && std::chrono::steady_clock::now() < give_up) io.run_one_for(10ms);
  io.run_one_for(1s);
}

}  // namespace nvmond::test
