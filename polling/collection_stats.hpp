#pragma once
// The nvmond_collection_* families of one drive: how its polls went, kept
// by the framework that runs them (the DevicePoller), never by what a poll
// reads, as node_exporter's execute() times every collector.
//
// Thread-safety: none; the poller's event-loop thread owns it.
#include <cstdint>
#include <map>

#include "core/error_reason.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

struct CollectionStats {
  std::uint64_t polls = 0;       // completed, ok or not
  double last_duration_s = 0;    // of the last one
  double last_success_unix = 0;  // clock time of the last good one; 0: none yet
  std::map<ErrorReason, std::uint64_t> errors_by_reason;

  void add_to(const LabelPrefix& id, MetricSet& out) const;
};

}  // namespace nvmond
