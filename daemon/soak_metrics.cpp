#include "daemon/soak_metrics.hpp"

#include <fmt/format.h>

#include "daemon/metric_set.hpp"

namespace nvmond {

std::vector<prometheus::MetricFamily> render_soak_metrics(const std::vector<RunView>& runs) {
  MetricSet out;
  for (const auto& r : runs) {
    const Labels id{{"serial", r.serial.empty() ? r.target : r.serial}, {"run", std::to_string(r.id)}};
    Labels named = id;
    named.push_back({"name", r.name});
    named.push_back({"test", r.test});
    out.gauge("nvmond_soak_running", "1 while the soak run is running, 0 while it is paused.", named,
              r.status == "running" ? 1 : 0);
    if (!r.phase.empty()) {
      Labels p = id;
      p.push_back({"phase", r.phase});
      out.gauge("nvmond_soak_phase", "The soak run's current phase; always 1.", p, 1);
    }
    out.gauge("nvmond_soak_round", "Rounds the soak run has finished.", id, static_cast<double>(r.round));
    out.gauge("nvmond_soak_rounds_planned", "Rounds the soak run plans (0: until steady state).", id,
              static_cast<double>(r.rounds_total));
    out.gauge("nvmond_soak_iops", "I/Os per second of the soak run's last round.", id, r.iops);
    out.gauge("nvmond_soak_throughput_bytes_per_second", "Bytes per second of the soak run's last round.", id,
              r.bytes_per_second);
    if (r.eta) out.gauge("nvmond_soak_eta_seconds", "Estimated time until the soak run ends.", id, seconds(*r.eta));
    if (r.steady) {
      out.gauge("nvmond_soak_steady_state", "1 once the run reached PTS steady state, else 0.", id, *r.steady ? 1 : 0);
    }
    const std::pair<const char*, const std::optional<double>*> window[] = {
        {"average", &r.window_average}, {"range", &r.window_range}, {"excursion", &r.window_excursion}};
    for (const auto& [stat, v] : window) {
      if (!v->has_value()) continue;
      Labels l = id;
      l.push_back({"stat", stat});
      out.gauge("nvmond_soak_steady_window", "Steady-state window of the tracked variable: average, range, excursion.",
                l, **v);
    }
    for (const auto& [q, s] : r.round_latency) {
      Labels l = id;
      // Not `quantile`: promtool keeps that label to summaries and
      // histograms, and a round's numbers are no running summary.
      l.push_back({"percentile", fmt::format("{:g}", q * 100)});
      out.gauge("nvmond_soak_round_latency_seconds",
                "Latency percentiles of the soak run's last finished round (its dominant operation).", l, s);
    }
  }
  return out.take();
}

}  // namespace nvmond
