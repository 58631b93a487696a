#include "workloads/run_job_cli.hpp"

#include <fmt/core.h>

#include <ostream>
#include <nlohmann/json.hpp>

#include "workloads/workload_metrics.hpp"

namespace nvmond {

JobsConfig load_job_file(const std::string& path) {
  toml::table root_table = parse_toml_file(path);
  TableReader root(root_table, path, "");
  JobsConfig f = read_jobs_config(root, nullptr);
  root.finish();
  if (f.jobs.empty()) throw ConfigError(path + ": no [[job]] table");
  return f;
}

std::string result_json(const RunResult& r, bool with_timeline) {
  using nlohmann::json;
  json j;
  j["job"] = r.job;
  j["target"] = r.target;
  j["engine"] = r.engine;
  if (r.failure) {
    j["failure"] = {{"reason", to_text(r.failure->reason)}, {"message", r.failure->message}};
    return j.dump();
  }
  const double secs = seconds(r.elapsed);
  j["elapsed_seconds"] = secs;
  for (int op = 0; op < kIoOpCount; ++op) {
    const OpTotals& t = r.op[op];
    json o;
    o["ops"] = t.ops;
    o["bytes"] = t.bytes;
    o["errors"] = t.errors;
    o["iops"] = secs > 0 ? static_cast<double>(t.ops) / secs : 0.0;
    o["bytes_per_second"] = secs > 0 ? static_cast<double>(t.bytes) / secs : 0.0;
    json lat;
    lat["min"] = static_cast<double>(t.latency.min()) * 1e-9;
    lat["mean"] = t.latency.mean() * 1e-9;
    lat["max"] = static_cast<double>(t.latency.max()) * 1e-9;
    static const std::pair<const char*, double> kPoints[] = {
        {"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p99.9", 0.999}, {"p99.99", 0.9999}, {"p99.999", 0.99999}};
    for (const auto& [key, q] : kPoints) lat[key] = t.latency.quantile(q) * 1e-9;
    // What a dashboard's histogram_quantile() would read from the metric's
    // buckets, so the benchmark can state the bucket layout's error.
    if (t.latency.count() > 0) {
      const auto buckets = latency_buckets_of(t.latency);
      lat["histogram_quantile"] = {{"p99", histogram_quantile(0.99, buckets)},
                                   {"p99.9", histogram_quantile(0.999, buckets)}};
    }
    o["latency_seconds"] = lat;
    j[op_name(static_cast<IoOp>(op))] = o;
  }
  j["short_ios"] = r.short_ios;
  j["verify"] = {{"blocks", r.verified_blocks}, {"failures", r.verify_failures}};
  json errors = json::array();
  for (const auto& e : r.error_samples) {
    errors.push_back(
        {{"op", op_name(e.op)}, {"offset", e.offset}, {"length", e.length}, {"errno", e.error}, {"what", e.what}});
  }
  j["error_samples"] = errors;
  if (with_timeline) {
    json tl = json::array();
    for (std::size_t s = 0; s < r.timeline.size(); ++s) {
      json p{{"second", s}};
      for (int op = 0; op < kIoOpCount; ++op) {
        const TimelineOp& t = r.timeline[s].op[op];
        const std::string name = op_name(static_cast<IoOp>(op));
        p[name + "_ops"] = t.ops;
        p[name + "_bytes"] = t.bytes;
        p[name + "_mean_latency_seconds"] = t.mean_latency_seconds();
      }
      tl.push_back(p);
    }
    j["timeline"] = tl;
  }
  return j.dump();
}

int run_job_cli(const std::string& path, std::ostream& out, std::ostream& err, const EngineFactory& factory) {
  JobsConfig file;
  try {
    file = load_job_file(path);
  } catch (const ConfigError& e) {
    err << e.what() << "\n";
    return 2;
  }
  SafetyGuard guard(file.safety);
  int rc = 0;
  for (const auto& spec : file.jobs) {
    JobRunner runner(spec, factory, &guard);
    RunResult r = runner.run();
    out << result_json(r) << "\n";
    if (r.failure) {
      err << spec.name << ": " << r.failure->message << "\n";
      rc = 1;
    } else if ((r.total_errors() > 0 || r.verify_failures > 0) && rc == 0) {
      rc = 3;
    }
  }
  return rc;
}

}  // namespace nvmond
