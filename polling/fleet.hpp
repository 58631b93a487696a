#pragma once
// The drives one configuration describes: their sources (libnvme, simulated),
// one poller per controller, and the rescan that picks up controllers that
// appear later. A reload builds a new Fleet and drops the old one.
//
// Thread-safety: event-loop thread only.
#include <boost/asio/io_context.hpp>

#include <map>
#include <memory>
#include <string>

#include "core/throughput_feed.hpp"
#include "services/config.hpp"
#include "store/store.hpp"
#include "polling/poller.hpp"
#include "drivelog/telemetry_archive.hpp"

namespace nvmond {

class SimDeviceSource;
class DriveModel;

class Fleet {
 public:
  // `store` keeps wear and thermal history; it must outlive the Fleet.
  // `extra` sources are polled beside the configured ones, at the configured
  // poll interval (tests hand fake controllers in here). `sim_models`: the
  // live models of the Fleet this one replaces on reload.
  Fleet(boost::asio::io_context& io, const DaemonConfig& config, const Clock& clock, PublishedMetrics& out,
        Store& store, std::vector<std::unique_ptr<DeviceSource>> extra = {},
        const std::vector<std::shared_ptr<DriveModel>>& sim_models = {});
  ~Fleet();
  // Before start(): the drives' analytics read the throughput workloads
  // report to `feed` (it must outlive the Fleet).
  void read_throughput(ThroughputFeed& feed) { throughput_ = &feed; }
  void start();
  std::size_t size() const { return pollers_.size(); }
  std::size_t up_count() const;
  // DevicePoller::self_test of the controller at `path`: `done` gets the
  // answer later, on the loop.
  void self_test(const std::string& path, std::optional<SelfTestKind> kind,
                 std::function<void(std::optional<Error>)> done);
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

  boost::asio::io_context& io_;
  const DaemonConfig& config_;
  const Clock& clock_;
  PublishedMetrics& out_;
  Store& store_;
  std::shared_ptr<TelemetryArchive> telemetry_archive_;  // STATE_DIR/telemetry, shared by every drive
  ThroughputFeed* throughput_ = nullptr;
  std::vector<Source> sources_;
  SimDeviceSource* sim_source_ = nullptr;
  std::map<std::string, std::unique_ptr<DevicePoller>> pollers_;
  std::unique_ptr<Timer> rescan_timer_;  // real time: controllers come and go in real time
};

}  // namespace nvmond
