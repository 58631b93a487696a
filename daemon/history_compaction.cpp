#include "daemon/history_compaction.hpp"

#include "core/log.hpp"

namespace nvmond {

HistoryCompaction::HistoryCompaction(boost::asio::io_context& io, const Clock& clock, Store& store,
                                     const RetentionPolicy& retention)
    : clock_(clock), store_(store), retention_(retention), timer_(clock.timer(io)) {}

void HistoryCompaction::start() {
  timer_->arm(kEvery, [this] { run(); });
}

void HistoryCompaction::run() {
  // A failing store has logged (once) and counted it already.
  if (auto r = store_.compact(clock_.wall(), retention_); !r) {
    log::debug("compacting history: {}", r.error().message);
  }
  start();
}

}  // namespace nvmond
