#pragma once
// The one reader of [[job]] tables (keys in workloads/job_spec.hpp) and the
// [safety] table (workloads/safety_guard.hpp): the daemon reads them from its
// configuration file, `nvmonctl run-job` from a job file.
//
// [[job]]                      # every job starts when the daemon (re)starts
// name = "soak"                # unique; metric label job="soak"
// target = "sim:SIM0001"       # with engine = "sim": a [[sim]] drive's serial
// engine = "sim"
// ...
// [safety]
// allow_serials = ["S4EWNX0R123456"]
// allow_dirs = ["/var/lib/nvmond/scratch"]
#include <string>
#include <vector>

#include "core/config_reader.hpp"
#include "workloads/job_spec.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

struct JobsConfig {
  std::vector<JobSpec> jobs;
  SafetyConfig safety;
};

// Reads root's [[job]] array and [safety] table (marking them as known keys of
// root; it does not call root.finish(), the caller does). Job names must be
// unique. `sim_serials`, where the file also configures the simulated drives
// (the daemon's): a job with engine = "sim" must name one of them, and a
// "sim:" target needs engine = "sim". nullptr (a job file, which has no
// [[sim]] drives): neither is checked here; such jobs fail at setup, naming
// their target, as before. Throws ConfigError with file:line:col.
JobsConfig read_jobs_config(TableReader& root, const std::vector<std::string>* sim_serials);

}  // namespace nvmond
