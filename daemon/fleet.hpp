#pragma once
// The drives one configuration describes: their sources (libnvme, simulated),
// one poller per controller, and the rescan that picks up controllers that
// appear later. A reload builds a new Fleet and drops the old one.
//
// Thread-safety: event-loop thread only.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <string>

#include "core/throughput_feed.hpp"
#include "daemon/config.hpp"
#include "daemon/store/store.hpp"
#include "daemon/poller.hpp"

namespace nvmond {

class SimDeviceSource;
class DriveModel;

class Fleet {
 public:
  // `store` keeps wear and thermal history; it must outlive the Fleet.
  // `sim_models`: the live models of the Fleet this one replaces on reload.
  // `throughput` (may be null): where workloads report their throughput per
  // drive; it must outlive the Fleet.
  Fleet(boost::asio::io_context& io, const DaemonConfig& config, const Clock& clock,
        PublishedMetrics& out, Store& store, const std::vector<std::shared_ptr<DriveModel>>& sim_models = {},
        ThroughputFeed* throughput = nullptr);
  ~Fleet();
  void start();
  std::size_t size() const { return pollers_.size(); }
  std::size_t up_count() const;
  // The [[sim]] drives (nullptr without any); valid while this Fleet lives.
  const SimDeviceSource* sim_source() const { return sim_source_; }

 private:
  struct Source {
    std::unique_ptr<DeviceSource> source;
    std::map<std::string, Duration> interval_by_path;  // per-device overrides
    Duration interval;
    PollObserver observer;
  };
  void rescan();
  void arm_rescan();
  PollObserver observer_for(const Source& source) const;

  boost::asio::io_context& io_;
  const DaemonConfig& config_;
  const Clock& clock_;
  PublishedMetrics& out_;
  Store& store_;
  ThroughputFeed* throughput_;
  std::vector<Source> sources_;
  SimDeviceSource* sim_source_ = nullptr;
  std::map<std::string, std::unique_ptr<DevicePoller>> pollers_;
  boost::asio::steady_timer rescan_timer_;
};

}  // namespace nvmond
