#include "pts/run_header.hpp"

#include "collectors/health.hpp"
#include "core/build_info.hpp"
#include "pts/plan_facts.hpp"
#include "runmodel/round_record.hpp"

namespace nvmond {

SmartRecord smart_record(WallTime time, double temperature_c, const SmartLog& log,
                         const std::optional<OcpLatencyMonitorLog>& latency_monitor) {
  SmartRecord s;
  s.time = rfc3339(time);
  s.temperature_c = temperature_c;
  s.data_units_written = to_double(log.data_units_written);
  s.percentage_used = log.percentage_used;
  s.thermal_mgmt_t1_transitions = log.thermal.tmt1_transitions;
  if (latency_monitor && latency_monitor->enabled()) {
    s.latency_monitor_threshold_s = latency_monitor->threshold_ms(0) / 1000.0;
    s.latency_monitor_reads = latency_monitor->static_over_threshold(OcpLatencyOp::read);
    s.latency_monitor_writes = latency_monitor->static_over_threshold(OcpLatencyOp::write);
  }
  return s;
}

RunHeader run_header(const TestPlan& plan, const TargetRecord& id, const std::string& target, bool simulated,
                     WallTime started) {
  RunHeader h;
  h.test = plan.test;
  h.profile = plan.profile;
  h.started_at = rfc3339(started);
  h.started_ns = to_unix_ns(started);
  h.nvmond_version = build::kVersion;
  h.simulated_clock = simulated;
  h.target = id;
  h.target.path = target;  // the operator's name for it, which run.json has always kept
  h.target.tested_range_bytes = plan.tested_range_bytes;
  h.parameters = plan.parameters;
  h.plan = plan_record(plan);
  return h;
}

}  // namespace nvmond
