#include "engines/registry.hpp"

#include <fmt/core.h>

#include <array>

#include "collectors/sim_name.hpp"
#include "sim/sim_device.hpp"
#include "sim/sim_engine.hpp"
#include "workloads/uring_engine.hpp"

namespace nvmond {

namespace {

std::unique_ptr<IoEngine> make_uring(const JobSpec& job, const EngineContext&) { return make_uring_engine(job); }

std::unique_ptr<IoEngine> make_sim(const JobSpec& job, const EngineContext& ctx) {
  const std::string serial = sim_key(job.target).value_or("");
  return std::make_unique<SimEngine>(ctx.sims->model(serial), ctx.sims->clock(), serial);
}

constexpr std::array kEngines{
    EngineRow{"io_uring", EngineCaps::none, make_uring},
    EngineRow{"sim", EngineCaps::diskless | EngineCaps::clock_time | EngineCaps::sim_drives, make_sim},
};

std::string names(std::span<const EngineRow> table) {
  std::string out;
  for (const auto& row : table) out += fmt::format("{}\"{}\"", out.empty() ? "" : ", ", row.name);
  return out;
}

Error refused(const JobSpec& job, const std::string& why) {
  // `setup`, the reason the runner has always given a job without an engine:
  // it is the failed job's metric label.
  return Error{ErrorReason::setup, fmt::format("engine \"{}\" for {}: {}", job.engine, job.target, why)};
}

}  // namespace

std::span<const EngineRow> engine_table() { return kEngines; }

Result<std::unique_ptr<IoEngine>> load_engine(std::span<const EngineRow> table, const JobSpec& job,
                                              const EngineContext& ctx) {
  const EngineRow* row = nullptr;
  for (const auto& r : table) {
    if (r.name == job.engine) row = &r;
  }
  if (row == nullptr) return refused(job, fmt::format("no such engine (engines: {})", names(table)));
  if (has(row->caps, EngineCaps::sim_drives)) {
    if (!is_sim_target(job.target)) return refused(job, "its target must be a simulated drive, \"sim:SERIAL\"");
    if (ctx.sims == nullptr) {
      return refused(job, "runs only on the daemon's simulated drives ([[sim]]), and there are none here");
    }
  }
  std::unique_ptr<IoEngine> engine = row->make ? row->make(job, ctx) : nullptr;
  if (!engine) return refused(job, "the engine could not be made");
  const bool diskless = has(row->caps, EngineCaps::diskless);
  if (engine->touches_real_media() == diskless) {
    return refused(job, diskless ? "declared diskless, but the engine says it touches real media"
                                 : "declared to touch real media, but the engine says it does not, which would "
                                   "skip the safety guard");
  }
  const EngineTime declared = has(row->caps, EngineCaps::clock_time) ? EngineTime::clock : EngineTime::monotonic;
  if (engine->time_base() != declared) {
    return refused(job, declared == EngineTime::clock
                            ? "declared to count the daemon's clock, but the engine counts the monotonic clock"
                            : "declared to count the monotonic clock, but the engine counts the daemon's clock");
  }
  return engine;
}

EngineFactory make_engine_factory(const SimDeviceSource* sims) {
  return [sims](const JobSpec& job) { return load_engine(engine_table(), job, EngineContext{sims}); };
}

}  // namespace nvmond
