#include "nvmonctl/pts_run.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <iostream>

#include "core/atomic_file.hpp"
#include "services/config.hpp"
#include "store/sqlite_run_store.hpp"
#include "nvmonctl/pts_run_progress.hpp"
#include "services/targets.hpp"
#include "pts/run_executor.hpp"
#include "pts/catalog.hpp"
#include "runmodel/run_json.hpp"
#include "report/report_cli.hpp"

namespace nvmond {

int test_run_command(const TestRunArgs& a, std::ostream& progress, std::ostream& err) {
  DaemonConfig config;
  if (!a.config.empty()) {
    try {
      config = load_config(a.config, ConfigUse::tool);
    } catch (const std::exception& e) {
      err << e.what() << "\n";
      return 2;
    }
  }
  TestRequest request;
  try {
    ParamMap params;
    for (const auto& s : a.sets) params.insert_or_assign(parse_assignment(s).first, parse_assignment(s).second);
    request = validate(a.test, params, parse_profile(a.profile));
  } catch (const ParamError& e) {
    err << e.what() << "\n";
    return 2;
  }
  SafetyGuard guard(config.jobs.safety);
  auto target = open_test_target(a.target, config.sims, guard, nullptr);
  if (!target) {
    err << a.target << ": " << target.error().message << "\n";
    return 1;
  }
  TestPlan plan;
  try {
    const auto id = (*target)->identity();
    plan = build_plan(request, TargetFacts{id.capacity_bytes, id.rated_dwpd.value_or(0.0)});
  } catch (const ParamError& e) {
    err << e.what() << "\n";
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) {
    err << a.out << ": " << ec.message() << "\n";
    return 1;
  }
  auto store = SqliteRunStore::open_file((std::filesystem::path(a.out) / "runs.db").string());
  if (!store) {
    err << store.error().message << "\n";
    return 1;
  }
  RunOptions options{a.name.empty() ? a.test + "@" + a.target : a.name, a.target, a.resume};
  ProgressPrinter printer(progress, a.live_progress);
  RunExecutor executor(std::move(plan), **target, **store, options, [&](const RunProgress& p) { printer.round(p); });
  RunOutcome outcome = executor.run();
  printer.finish();
  if (outcome.failure && outcome.run_id == 0) {
    err << a.test << " on " << a.target << " refused: " << outcome.failure->message << "\n";
    return 1;
  }
  const std::string path = (std::filesystem::path(a.out) / "run.json").string();
  const nlohmann::json doc = run_json(outcome.run);
  if (auto e = write_file_atomically(path, doc.dump(2) + "\n")) {
    err << e->message << "\n";
    return 1;
  }
  // The run is recorded whatever happens to its report: a report that cannot
  // be written is said, not fatal (`nvmonctl report DIR` can retry it).
  if (auto e = report::write_report_beside(a.out, test_bases())) err << "report: " << e->message << "\n";
  progress << fmt::format("{}: {} (run {}), {} rounds, {}\n", a.test, to_text(outcome.status), outcome.run_id,
                          doc.value("rounds", nlohmann::json::array()).size(), path);
  if (outcome.failure) err << a.test << " on " << a.target << ": " << outcome.failure->message << "\n";
  return outcome.status == RunStatus::completed && outcome.recorded ? 0 : 1;
}

}  // namespace nvmond
