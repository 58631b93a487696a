#include "workloads/jobs_config.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "collectors/sim_name.hpp"

namespace nvmond {

namespace {

void check_sim_target(TableReader& t, const JobSpec& spec, const std::vector<std::string>& sim_serials) {
  const auto serial = sim_key(spec.target);
  if (serial && spec.engine != "sim") t.fail("target", "a \"sim:SERIAL\" target needs engine = \"sim\"");
  if (spec.engine == "sim" && std::find(sim_serials.begin(), sim_serials.end(), *serial) == sim_serials.end()) {
    t.fail("target", fmt::format("no [[sim]] drive has serial \"{}\"", *serial));
  }
}

}  // namespace

JobsConfig read_jobs_config(TableReader& root, const std::vector<std::string>* sim_serials) {
  JobsConfig c;
  std::map<std::string, std::string> seen_names;  // name -> where
  for (auto& t : root.array_of_tables("job")) {
    JobSpec spec = parse_job(t);
    if (auto [it, fresh] = seen_names.emplace(spec.name, t.where()); !fresh) {
      t.fail("name", fmt::format("duplicate job: name \"{}\" is already used by {}", spec.name, it->second));
    }
    if (sim_serials) check_sim_target(t, spec, *sim_serials);
    c.jobs.push_back(std::move(spec));
  }
  if (auto s = root.table("safety")) c.safety = parse_safety(*s);
  return c;
}

}  // namespace nvmond
