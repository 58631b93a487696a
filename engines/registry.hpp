#pragma once
// The I/O engines a job can name (`engine = "..."`), one row each, in the
// style of fio's ioengine table: a name, what the engine declares itself to
// be, and how to make one. Adding an engine is a row here and its class in
// the folder of what it drives (workloads/ for the kernel's, sim/ for the
// simulated drive's); the runner and the programs know only EngineFactory.
//
// Its own folder, not the simulator's: the real targets (a PTS run on a
// device, nvmonctl run-job) make their engines here and have no business
// with the simulator. Layer 3, the lowest that sees both sim/ and workloads/.
#include <memory>
#include <span>
#include <string_view>

#include "core/result.hpp"
#include "workloads/io_engine.hpp"
#include "workloads/job_spec.hpp"
#include "workloads/runner.hpp"

namespace nvmond {

class SimDeviceSource;

// What a row declares about its engine. The runner trusts the engine's own
// answers (touches_real_media() decides whether the safety guard opens the
// target), so load_engine() holds each engine it makes to its row, as fio
// holds an ioengine to its flags when it loads it: an engine that disowned
// its media would skip the guard, and one with the wrong time base would
// stamp a run's intervals in the wrong calendar.
enum class EngineCaps : unsigned {
  none = 0,
  diskless = 1u << 0,    // its I/O reaches no device or file: no safety guard
  clock_time = 1u << 1,  // counts the daemon's Clock, not the monotonic clock
  sim_drives = 1u << 2,  // runs on one of the daemon's simulated drives ("sim:SERIAL")
};
constexpr EngineCaps operator|(EngineCaps a, EngineCaps b) {
  return static_cast<EngineCaps>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(EngineCaps set, EngineCaps cap) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(cap)) != 0;
}

// What an engine is made from besides its job.
struct EngineContext {
  // The daemon's simulated drives; none in nvmonctl run-job or a PTS run on
  // a device, where a sim engine has no drive to run on.
  const SimDeviceSource* sims = nullptr;
};

struct EngineRow {
  std::string_view name;
  EngineCaps caps = EngineCaps::none;
  // One worker's engine for `job`. load_engine() has checked the job against
  // `caps` first (a sim_drives row gets its `ctx.sims`).
  std::unique_ptr<IoEngine> (*make)(const JobSpec& job, const EngineContext& ctx) = nullptr;
};

// io_uring and sim, the engines nvmond and nvmonctl run.
std::span<const EngineRow> engine_table();

// The engine `job.engine` names in `table`, made for one worker. Refused,
// naming why: a name not in the table (listing those that are), a job its
// row cannot run (a sim_drives engine without drives or with a target that
// is no "sim:SERIAL"), and an engine that does not behave as its row
// declares.
Result<std::unique_ptr<IoEngine>> load_engine(std::span<const EngineRow> table, const JobSpec& job,
                                              const EngineContext& ctx);

// The factory the runner takes: load_engine() over engine_table(). `sims`
// (may be null) must outlive every run.
EngineFactory make_engine_factory(const SimDeviceSource* sims = nullptr);

}  // namespace nvmond
