#include "pts/stored_run.hpp"

#include <fmt/core.h>

#include "runmodel/run_codec.hpp"
#include "pts/params.hpp"
#include "pts/plan_facts.hpp"
#include "runmodel/run_json.hpp"

namespace nvmond {

using nlohmann::json;

std::vector<RoundRecord> rounds_from_rows(const std::vector<RoundRow>& rows) {
  std::vector<RoundRecord> rounds;
  rounds.reserve(rows.size());
  for (const auto& r : rows) rounds.push_back(round_from_json(json::parse(r.data)));
  return rounds;
}

namespace {

// The plan the run's rounds are analysed under: the facts its header kept,
// or for a run stored before they were, the plan its parameters build today.
TestPlan stored_plan(const RunHeader& header) {
  if (header.plan) return plan_from_record(header.test, *header.plan);
  const TargetFacts facts{header.target.capacity_bytes, header.target.rated_dwpd.value_or(0.0)};
  return build_plan(header.test, header.parameters, facts, header.profile.value_or(PtsProfile::enterprise));
}

}  // namespace

Result<Run> run_from_store(const StoredRun& stored) {
  const RunRow& row = stored.run;
  const std::string who = fmt::format("run {} ({})", row.id, row.name);
  auto header = header_from_blob(row.header);
  if (!header) return Error{ErrorReason::decode, fmt::format("{}: unreadable record: {}", who, header.error().message)};
  try {
    const TestPlan plan = stored_plan(*header);
    std::vector<RoundRecord> rounds = rounds_from_rows(stored.rounds);
    // The row is the authority on the run's id and how it ended; a header
    // from before its end was recorded has no end of its own.
    header->run_id = row.id;
    if (row.ended_ns && !header->ended_at) header->ended_at = rfc3339(from_unix_ns(*row.ended_ns));
    return make_run(plan, std::move(*header), row.status, std::move(rounds));
  } catch (const json::exception& e) {
    return Error{ErrorReason::decode, fmt::format("{}: unreadable record: {}", who, e.what())};
  } catch (const ParamError& e) {
    return Error{ErrorReason::decode, fmt::format("{}: its parameters no longer make a plan: {}", who, e.what())};
  }
}

Result<json> run_json_from_store(const StoredRun& stored) {
  auto run = run_from_store(stored);
  if (!run) return run.error();
  return run_json(*run);
}

}  // namespace nvmond
