#include "soak/soak_metrics.hpp"

#include <fmt/format.h>

#include "metrics/metric_set.hpp"

namespace nvmond {

std::vector<prometheus::MetricFamily> render_soak_metrics(const std::vector<RunView>& runs,
                                                          const std::vector<ScheduleView>& schedules) {
  MetricSet out;
  // Every schedule, 0 included, so an alert's increase() sees the first failure.
  for (const auto& s : schedules) {
    out.add({"nvmond_soak_start_failures_total", Family::counter,
             "Starts of the soak that failed (run store unavailable, target refused or absent); retried with backoff."},
            {{"name", s.name}}, static_cast<double>(s.failed_starts));
  }
  for (const auto& r : runs) {
    const Labels id{{"serial", r.serial.empty() ? r.target : r.serial}, {"run", std::to_string(r.id)}};
    out.add({"nvmond_soak_running", Family::gauge, "1 while the soak run is running, 0 while it is paused."},
            with(with(id, "name", r.name), "test", r.test), r.status == RunStatus::running ? 1 : 0);
    if (!r.paused_reason.empty()) {
      out.add({"nvmond_soak_paused", Family::gauge,
               "1 while the daemon holds the soak run paused because the run store cannot record its round; "
               "reason: the store's (locked, full, read_only, io). Absent otherwise."},
              with(id, "reason", r.paused_reason), 1);
    }
    if (!r.phase.empty()) {
      out.add({"nvmond_soak_phase", Family::gauge, "The soak run's current phase; always 1."},
              with(id, "phase", r.phase), 1);
    }
    out.add({"nvmond_soak_round", Family::gauge, "Rounds the soak run has finished."}, id,
            static_cast<double>(r.round));
    out.add({"nvmond_soak_rounds_planned", Family::gauge, "Rounds the soak run plans (0: until steady state)."}, id,
            static_cast<double>(r.rounds_total));
    out.add({"nvmond_soak_iops", Family::gauge, "I/Os per second of the soak run's last round."}, id, r.iops);
    out.add(
        {"nvmond_soak_throughput_bytes_per_second", Family::gauge, "Bytes per second of the soak run's last round."},
        id, r.bytes_per_second);
    if (r.eta) {
      out.add({"nvmond_soak_eta_seconds", Family::gauge, "Estimated time until the soak run ends."}, id,
              seconds(*r.eta));
    }
    if (r.steady) {
      out.add({"nvmond_soak_steady_state", Family::gauge, "1 once the run reached PTS steady state, else 0."}, id,
              *r.steady ? 1 : 0);
    }
    const std::pair<const char*, const std::optional<double>*> window[] = {
        {"average", &r.window_average}, {"range", &r.window_range}, {"excursion", &r.window_excursion}};
    for (const auto& [stat, v] : window) {
      if (!v->has_value()) continue;
      out.add({"nvmond_soak_steady_window", Family::gauge,
               "Steady-state window of the tracked variable: average, range, excursion."},
              with(id, "stat", stat), **v);
    }
    for (const auto& [q, s] : r.round_latency) {
      // Not `quantile`: promtool keeps that label to summaries and
      // histograms, and a round's numbers are no running summary.
      out.add({"nvmond_soak_round_latency_seconds", Family::gauge,
               "Latency percentiles of the soak run's last finished round (its dominant operation)."},
              with(id, "percentile", fmt::format("{:g}", q * 100)), s);
    }
  }
  return out.take();
}

}  // namespace nvmond
