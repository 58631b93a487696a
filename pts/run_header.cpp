#include "pts/run_header.hpp"

#include "collectors/health.hpp"
#include "core/build_info.hpp"
#include "pts/plan_facts.hpp"
#include "runmodel/round_record.hpp"

namespace nvmond {

SmartRecord smart_record(const HealthSample& h) {
  SmartRecord s;
  s.time = rfc3339(h.time);
  s.temperature_c = h.temperature_c;
  s.data_units_written = h.data_units_written;
  s.percentage_used = h.percentage_used;
  s.thermal_mgmt_t1_transitions = h.throttle_events;
  if (h.latency_monitor && h.latency_monitor->enabled()) {
    s.latency_monitor_threshold_s = h.latency_monitor->threshold_ms(0) / 1000.0;
    s.latency_monitor_reads = h.latency_monitor->static_over_threshold(OcpLatencyOp::read);
    s.latency_monitor_writes = h.latency_monitor->static_over_threshold(OcpLatencyOp::write);
  }
  return s;
}

RunHeader run_header(const TestPlan& plan, const TargetIdentity& id, const std::string& target, bool simulated,
                     WallTime started) {
  RunHeader h;
  h.test = plan.test;
  h.profile = plan.profile;
  h.started_at = rfc3339(started);
  h.started_ns = to_unix_ns(started);
  h.nvmond_version = build::kVersion;
  h.simulated_clock = simulated;
  h.target.path = target;
  h.target.serial = id.serial;
  h.target.model = id.model;
  h.target.firmware = id.firmware;
  h.target.capacity_bytes = id.capacity_bytes;
  h.target.tested_range_bytes = plan.tested_range_bytes;
  // A rating of 0 is unknown: run.json leaves it out.
  if (id.rated_dwpd > 0) h.target.rated_dwpd = id.rated_dwpd;
  if (id.rated_endurance_bytes > 0) h.target.rated_endurance_bytes = id.rated_endurance_bytes;
  h.target.warning_temp_c = id.warning_temp_c;
  h.target.critical_temp_c = id.critical_temp_c;
  h.parameters = plan.parameters;
  h.plan = plan_record(plan);
  return h;
}

}  // namespace nvmond
