#pragma once
// Live soak runs as Prometheus families, labelled by the drive's `serial`
// (plus `run`, `name`, `test`) so a dashboard joins a run with the drive's
// temperature and throttle events:
//
//   nvmond_soak_running{serial,run,name,test}             1 running, 0 paused
//   nvmond_soak_paused{serial,run,reason}                 1 while its round waits for the run store
//   nvmond_soak_phase{serial,run,phase}                   1 for the current phase
//   nvmond_soak_round{serial,run}                         finished rounds
//   nvmond_soak_rounds_planned{serial,run}                0 when open-ended
//   nvmond_soak_iops{serial,run}                          last round
//   nvmond_soak_throughput_bytes_per_second{serial,run}   last round
//   nvmond_soak_eta_seconds{serial,run}                   when known
//   nvmond_soak_steady_state{serial,run}                  1 reached, 0 not (yet)
//   nvmond_soak_steady_window{serial,run,stat}            average | range | excursion
//   nvmond_soak_round_latency_seconds{serial,run,percentile} last round (50, 99, 99.9, 99.99)
//   nvmond_soak_start_failures_total{name}                 failed starts of each scheduled soak
//
// Pure: same views, same families.
#include <prometheus/metric_family.h>

#include <vector>

#include "schedule/soak_control.hpp"
#include "schedule/soak_scheduler.hpp"

namespace nvmond {

std::vector<prometheus::MetricFamily> render_soak_metrics(const std::vector<RunView>& runs,
                                                          const std::vector<ScheduleView>& schedules);

}  // namespace nvmond
