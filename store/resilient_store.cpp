#include "store/resilient_store.hpp"

namespace nvmond {

namespace {
StoreRole history_role() {
  return {"history store", "drives are still polled and exported, history is not recorded until it recovers",
          "recording history again"};
}
}  // namespace

ResilientStore::ResilientStore(std::unique_ptr<StoreBackend> backend, const Clock& clock, StoreRetry retry,
                               ErrorListener on_error)
    : store_(history_role(), std::move(backend), clock, retry, std::move(on_error)) {}

StoreStatus ResilientStore::commit(const PollRecord& record) {
  return store_.run<std::monostate>([&](Store& s) { return s.commit(record); });
}

StoreStatus ResilientStore::commit_all(const std::vector<PollRecord>& records) {
  return store_.run<std::monostate>([&](Store& s) { return s.commit_all(records); });
}

Result<std::optional<SampleRecord>> ResilientStore::last_sample(const DriveKey& drive) {
  return store_.run<std::optional<SampleRecord>>([&](Store& s) { return s.last_sample(drive); });
}

Result<std::optional<WallTime>> ResilientStore::latest_sample_time() {
  return store_.run<std::optional<WallTime>>([&](Store& s) { return s.latest_sample_time(); });
}

Result<std::vector<std::optional<SampleRecord>>> ResilientStore::first_samples_since(const DriveKey& drive,
                                                                                     std::int64_t segment,
                                                                                     std::span<const WallTime> since) {
  return store_.run<std::vector<std::optional<SampleRecord>>>(
      [&](Store& s) { return s.first_samples_since(drive, segment, since); });
}

Result<std::vector<SampleRecord>> ResilientStore::samples(const DriveKey& drive, WallTime from, WallTime to) {
  return store_.run<std::vector<SampleRecord>>([&](Store& s) { return s.samples(drive, from, to); });
}

Result<std::vector<ThermalEventRecord>> ResilientStore::events(const DriveKey& drive, WallTime since) {
  return store_.run<std::vector<ThermalEventRecord>>([&](Store& s) { return s.events(drive, since); });
}

Result<std::optional<std::string>> ResilientStore::state(const DriveKey& drive, std::string_view key) {
  return store_.run<std::optional<std::string>>([&](Store& s) { return s.state(drive, key); });
}

Result<CompactionStats> ResilientStore::compact(WallTime now, const RetentionPolicy& policy) {
  return store_.run<CompactionStats>([&](Store& s) { return s.compact(now, policy); });
}

Result<StoreStats> ResilientStore::stats() {
  return store_.run<StoreStats>([&](Store& s) { return s.stats(); });
}

}  // namespace nvmond
