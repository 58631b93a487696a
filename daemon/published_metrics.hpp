#pragma once
// What a scrape reads. Pollers publish each device's families as an immutable
// snapshot; Collect() (called on the web server's threads) only copies
// shared_ptrs under a short lock and merges. No scrape ever waits on a device.
#include <prometheus/collectable.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace nvmond {

class PublishedMetrics final : public prometheus::Collectable {
 public:
  using Families = std::vector<prometheus::MetricFamily>;
  // Replaces what `key` published before. Thread-safe.
  void publish(const std::string& key, Families families);
  // Drops a source that is gone (a removed device, a finished job).
  void remove(const std::string& key);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Families>> sources_;
};

}  // namespace nvmond
