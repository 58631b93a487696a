#include "daemon/soak_runner.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/log.hpp"
#include "daemon/store/sqlite_run_store.hpp"
#include "daemon/store/sqlite_store.hpp"
#include "report/report_cli.hpp"

namespace nvmond {

SoakRunner::SoakRunner(std::vector<SoakSpec> soaks, std::string state_dir, const std::vector<SimSettings>& sims,
                       const SafetyGuard& guard, const SimDeviceSource* source)
    : soaks_(std::move(soaks)), state_dir_(std::move(state_dir)), sims_(sims), guard_(guard), source_(source) {}

SoakRunner::~SoakRunner() { stop(); }

void SoakRunner::start() {
  if (soaks_.empty() || thread_.joinable()) return;
  thread_ = std::thread([this] { run_all(); });
}

void SoakRunner::stop() {
  stopping_.store(true);
  {
    std::lock_guard lock(mu_);
    if (current_) current_->stop();
  }
  if (thread_.joinable()) thread_.join();
}

void SoakRunner::run_all() {
  const std::string db = (std::filesystem::path(state_dir_) / SqliteStore::kFileName).string();
  auto store = SqliteRunStore::open_file(db);
  if (!store) {
    log::error("soaks: {}", store.error().message);
    return;
  }
  for (const auto& soak : soaks_) {
    if (stopping_.load()) return;
    auto target = open_test_target(soak.target, sims_, guard_, source_);
    if (!target) {
      log::error("soak {}: {}: {}", soak.name, soak.target, target.error().message);
      continue;
    }
    const auto id = (*target)->identity();
    TestPlan plan = build_plan(soak.test, soak.params, TargetFacts{id.capacity_bytes, id.rated_dwpd});
    RunExecutor executor(std::move(plan), **target, **store, RunOptions{soak.name, soak.target, true},
                         [&](const RunProgress& p) {
                           if (p.index == 1 || p.index % 100 == 0) {
                             log::info("soak {}: round {} {} {} {:.0f} IOPS", soak.name, p.round, p.phase, p.label,
                                       p.iops);
                           }
                         });
    {
      std::lock_guard lock(mu_);
      if (stopping_.load()) return;
      current_ = &executor;
    }
    log::info("soak {}: {} on {} started", soak.name, soak.test, soak.target);
    RunOutcome out = executor.run();
    {
      std::lock_guard lock(mu_);
      current_ = nullptr;
    }
    if (out.failure) log::error("soak {}: {}: {}", soak.name, out.status, out.failure->message);
    if (out.run_id == 0) continue;
    const auto dir = std::filesystem::path(state_dir_) / "runs" / fmt::format("{}-{}", soak.name, out.run_id);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (auto e = write_file_atomically((dir / "run.json").string(), out.run.dump(2) + "\n")) {
      log::error("soak {}: {}", soak.name, e->message);
    } else if (auto r = report::write_report_beside(dir.string())) {
      log::error("soak {}: report: {}", soak.name, r->message);
    }
    log::info("soak {}: {} ({} rounds), {}", soak.name, out.status, out.run.value("rounds", nlohmann::json::array()).size(),
              (dir / "run.json").string());
  }
}

}  // namespace nvmond
