#include "pts/stored_run.hpp"

#include <fmt/core.h>

#include "pts/params.hpp"
#include "pts/run_json.hpp"

namespace nvmond {

using nlohmann::json;

Result<json> run_json_from_store(const StoredRun& stored) {
  const RunRow& row = stored.run;
  const std::string who = fmt::format("run {} ({})", row.id, row.name);
  try {
    json header = json::parse(row.header);
    ParamMap params;
    for (const auto& [k, v] : header.at("parameters").items()) params[k] = v.get<std::string>();
    const json& target = header.at("target");
    const TargetFacts facts{target.value("capacity_bytes", std::uint64_t{0}), target.value("rated_dwpd", 0.0)};
    const TestPlan plan = build_plan(header.value("test", row.test), params, facts);
    std::vector<RoundRecord> rounds;
    rounds.reserve(stored.rounds.size());
    for (const auto& r : stored.rounds) rounds.push_back(round_from_json(json::parse(r.data)));
    // The row is the authority on how the run ended: a run closed as
    // interrupted by the next start got its status there, not in the header.
    header["run_id"] = std::to_string(row.id);
    header["status"] = row.status;
    if (row.ended_ns && !header.contains("ended_at")) header["ended_at"] = rfc3339(from_unix_ns(*row.ended_ns));
    return build_run_json(plan, header, rounds);
  } catch (const json::exception& e) {
    return Error{"decode", fmt::format("{}: unreadable record: {}", who, e.what())};
  } catch (const ParamError& e) {
    return Error{"decode", fmt::format("{}: its parameters no longer make a plan: {}", who, e.what())};
  }
}

}  // namespace nvmond
