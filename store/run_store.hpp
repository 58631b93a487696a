#pragma once
// The store's half of durable PTS runs: a run row (what ran, on what, and
// how it ended) and its finished rounds. Plain text payloads (JSON written by
// pts/), so the store knows nothing of tests; the status is the one typed
// column it queries (its text: runmodel/run_status.hpp).
//
// Thread-safety: implementations serialise on one connection. Errors are
// values (reason "store"); "duplicate" when a round index is committed twice;
// "decode" for a row whose status names no RunStatus.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/result.hpp"
#include "runmodel/run_status.hpp"
#include "runmodel/run_view.hpp"

namespace nvmond {

struct RunRow : RunIdentity {
  std::string model;
  RunStatus status = RunStatus::running;  // running | completed | interrupted | failed
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> ended_ns;
  std::string header;       // JSON
  std::string checkpoint;   // simulated drive state after the last round
  std::int64_t rounds = 0;  // committed rounds (read only)
  // The fingerprint of the [[soak]] definition the run was started from
  // (schedule/soak_scheduler.hpp); empty for other runs. Written by
  // create_run, read back by latest_run only.
  std::string definition{};
};

struct RoundRow {
  std::int64_t index = 0;
  std::string phase;
  double iops = 0;
  std::string data;  // JSON
};

// One stored run, row and rounds, as a reader sees them.
struct StoredRun {
  RunRow run;
  std::vector<RoundRow> rounds;
};

class RunStore {
 public:
  virtual ~RunStore() = default;
  // Returns the new run's id.
  virtual Result<std::int64_t> create_run(const RunRow& run) = 0;
  // One transaction: the round and the run's checkpoint. A second commit of
  // the same index fails with reason "duplicate" and changes nothing.
  virtual Result<std::monostate> commit_round(std::int64_t run, const RoundRow& round,
                                              const std::string& checkpoint) = 0;
  virtual Result<std::monostate> update_run(std::int64_t run, RunStatus status, std::optional<std::int64_t> ended_ns,
                                            const std::string& header) = 0;
  // The newest run named `name` still marked running (a crash left it so).
  virtual Result<std::optional<RunRow>> unfinished_run(const std::string& name) = 0;
  // The newest run named `name`, whatever its status, with its definition
  // (no checkpoint): how a `once` soak knows it already ran.
  virtual Result<std::optional<RunRow>> latest_run(const std::string& name) = 0;
  virtual Result<std::vector<RoundRow>> rounds(std::int64_t run) = 0;
  // At most `limit` rounds with index >= `from`, in index order: what a
  // reader on the event loop asks for, so a 10-hour soak's 100,000 rounds
  // never come back in one piece. No default that reads them all and cuts: a
  // wrapper that forgot to pass it on would read every round per page.
  virtual Result<std::vector<RoundRow>> rounds_page(std::int64_t run, std::int64_t from, std::size_t limit) = 0;
  virtual Result<std::optional<RunRow>> run(std::int64_t id) = 0;
  // Newest first, at most `limit`; only runs on `serial` when given.
  virtual Result<std::vector<RunRow>> runs(const std::optional<std::string>& serial, int limit) = 0;
};

}  // namespace nvmond
