#pragma once
// Folds raw samples older than the retention to hourly ones (Store::compact)
// once per hour of the daemon's clock, so an accelerated clock compacts as
// often as a real one would. Its timer comes from the clock: a test on a
// ManualClock compacts by advancing it.
//
// Thread-safety: the event-loop thread. The io_context, clock, store and
// retention must outlive it.
#include <boost/asio/io_context.hpp>

#include <memory>

#include "core/clock.hpp"
#include "store/store.hpp"

namespace nvmond {

class HistoryCompaction {
 public:
  static constexpr Duration kEvery = std::chrono::hours(1);

  // `retention` is read at each run, so a reload's new one applies from the next.
  HistoryCompaction(boost::asio::io_context& io, const Clock& clock, Store& store, const RetentionPolicy& retention);
  // The first run one clock hour from now, then every hour after the last.
  void start();
  void stop() { timer_->cancel(); }

 private:
  void run();

  const Clock& clock_;
  Store& store_;
  const RetentionPolicy& retention_;
  std::unique_ptr<Timer> timer_;
};

}  // namespace nvmond
