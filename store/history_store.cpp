#include "store/history_store.hpp"

#include <filesystem>
#include <mutex>

#include "store/sqlite_backend.hpp"

namespace nvmond {
namespace {

// The readers' connection: read-only, opened when first needed and again
// after any failure. It neither logs, counts nor sets anything aside: the
// writer's ResilientStore is the one owner of the file and its failures; a
// failed read only leaves the analytics without that piece of history.
class ReadConnection final : public Store {
 public:
  ReadConnection(std::string path, SqliteOptions options) : path_(std::move(path)), options_(options) {
    options_.read_only = true;
  }

  StoreStatus commit(const PollRecord&) override {
    return Error{ErrorReason::read_only, "the readers' connection writes nothing"};
  }
  Result<std::optional<SampleRecord>> last_sample(const DriveKey& drive) override {
    return with<std::optional<SampleRecord>>([&](Store& s) { return s.last_sample(drive); });
  }
  Result<std::optional<WallTime>> latest_sample_time() override {
    return with<std::optional<WallTime>>([&](Store& s) { return s.latest_sample_time(); });
  }
  Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey& drive, std::int64_t segment,
                                                                       std::span<const WallTime> since) override {
    return with<std::vector<std::optional<SampleRecord>>>(
        [&](Store& s) { return s.first_samples_since(drive, segment, since); });
  }
  Result<std::vector<SampleRecord>> samples(const DriveKey& drive, WallTime from, WallTime to) override {
    return with<std::vector<SampleRecord>>([&](Store& s) { return s.samples(drive, from, to); });
  }
  Result<std::vector<ThermalEventRecord>> events(const DriveKey& drive, WallTime since) override {
    return with<std::vector<ThermalEventRecord>>([&](Store& s) { return s.events(drive, since); });
  }
  Result<std::optional<std::string>> state(const DriveKey& drive, std::string_view key) override {
    return with<std::optional<std::string>>([&](Store& s) { return s.state(drive, key); });
  }
  Result<CompactionStats> compact(WallTime, const RetentionPolicy&) override {
    return Error{ErrorReason::read_only, "the readers' connection compacts nothing"};
  }
  Result<StoreStats> stats() override {
    return with<StoreStats>([&](Store& s) { return s.stats(); });
  }

 private:
  template <typename T, typename Op>
  Result<T> with(Op op) {
    std::lock_guard lock(mu_);
    if (!db_) {
      auto opened = SqliteStore::open_file(path_, options_);
      if (!opened) return opened.error();
      db_ = std::move(*opened);
    }
    Result<T> r = op(*db_);
    if (!r) db_.reset();  // a fresh handle next time: the file may have been set aside or replaced
    return r;
  }

  std::mutex mu_;
  std::string path_;
  SqliteOptions options_;
  std::unique_ptr<SqliteStore> db_;
};

}  // namespace

std::unique_ptr<StoreWriter> open_history_store(const std::string& state_dir, const Clock& retry_clock,
                                                ResilientStore::ErrorListener on_error,
                                                const HistoryStoreOptions& options) {
  auto writes = std::make_shared<ResilientStore>(std::make_unique<SqliteBackend>(state_dir, options.writes),
                                                 retry_clock, options.retry, std::move(on_error));
  SqliteOptions read_options = options.writes;
  read_options.busy_timeout = options.read_busy_timeout;
  auto reads = std::make_shared<ReadConnection>((std::filesystem::path(state_dir) / SqliteStore::kFileName).string(),
                                                read_options);
  return std::make_unique<StoreWriter>(std::move(writes), std::move(reads), options.writer);
}

}  // namespace nvmond
