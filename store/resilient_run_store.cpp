#include "store/resilient_run_store.hpp"

namespace nvmond {

namespace {
StoreRole run_role() {
  return {"run store", "drives are still polled and exported, soak rounds are not recorded until it recovers",
          "recording soak runs again"};
}
}  // namespace

ResilientRunStore::ResilientRunStore(std::unique_ptr<BackendOf<RunStore>> backend, const Clock& clock, StoreRetry retry,
                                     StoreErrorListener on_error)
    : store_(run_role(), std::move(backend), clock, retry, std::move(on_error)) {}

Result<std::int64_t> ResilientRunStore::create_run(const RunRow& run) {
  return store_.run<std::int64_t>([&](RunStore& s) { return s.create_run(run); });
}

Result<std::monostate> ResilientRunStore::commit_round(std::int64_t run, const RoundRow& round,
                                                       const std::string& checkpoint) {
  return store_.run<std::monostate>([&](RunStore& s) { return s.commit_round(run, round, checkpoint); });
}

Result<std::monostate> ResilientRunStore::update_run(std::int64_t run, RunStatus status,
                                                     std::optional<std::int64_t> ended_ns, const std::string& header) {
  return store_.run<std::monostate>([&](RunStore& s) { return s.update_run(run, status, ended_ns, header); });
}

Result<std::optional<RunRow>> ResilientRunStore::unfinished_run(const std::string& name) {
  return store_.run<std::optional<RunRow>>([&](RunStore& s) { return s.unfinished_run(name); });
}

Result<std::optional<RunRow>> ResilientRunStore::latest_run(const std::string& name) {
  return store_.run<std::optional<RunRow>>([&](RunStore& s) { return s.latest_run(name); });
}

Result<std::vector<RoundRow>> ResilientRunStore::rounds(std::int64_t run) {
  return store_.run<std::vector<RoundRow>>([&](RunStore& s) { return s.rounds(run); });
}

Result<std::vector<RoundRow>> ResilientRunStore::rounds_page(std::int64_t run, std::int64_t from, std::size_t limit) {
  return store_.run<std::vector<RoundRow>>([&](RunStore& s) { return s.rounds_page(run, from, limit); });
}

Result<std::optional<RunRow>> ResilientRunStore::run(std::int64_t id) {
  return store_.run<std::optional<RunRow>>([&](RunStore& s) { return s.run(id); });
}

Result<std::vector<RunRow>> ResilientRunStore::runs(const std::optional<std::string>& serial, int limit) {
  return store_.run<std::vector<RunRow>>([&](RunStore& s) { return s.runs(serial, limit); });
}

}  // namespace nvmond
