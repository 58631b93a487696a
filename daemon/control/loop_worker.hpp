#pragma once
// One thread for what the event loop must not wait for but that is not a
// device command (those go to each drive's poll thread): reads of the run
// store for nvmonctl history and show. Each job runs on the thread and
// returns what to do next on the loop, which is posted there; a locked or
// slow runs.db therefore delays that answer only.
//
// Thread-safety: submit() on the loop's thread. The destructor waits at most
// kStopGrace for the job in progress (a hung filesystem does not hold the
// daemon's stop) and drops the jobs not started.
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>

#include "core/clock.hpp"

namespace nvmond {

class LoopWorker {
 public:
  using Job = std::function<std::function<void()>()>;
  static constexpr Duration kStopGrace = std::chrono::seconds(2);

  explicit LoopWorker(boost::asio::io_context& io);
  ~LoopWorker();
  LoopWorker(const LoopWorker&) = delete;
  LoopWorker& operator=(const LoopWorker&) = delete;

  // Runs `job` on the worker's thread, then what it returns on the loop.
  void submit(Job job);

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace nvmond
