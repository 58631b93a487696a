#include "daemon/jobs_config.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

namespace nvmond {

JobsConfig read_jobs_config(TableReader& root, const std::vector<std::string>& sim_serials) {
  JobsConfig c;
  std::map<std::string, std::string> seen_names;  // name -> where
  for (auto& t : root.array_of_tables("job")) {
    JobSpec spec = parse_job(t);
    if (auto [it, fresh] = seen_names.emplace(spec.name, t.where()); !fresh) {
      t.fail("name", fmt::format("duplicate job: name \"{}\" is already used by {}", spec.name,
                                 it->second));
    }
    const bool sim_target = spec.target.rfind("sim:", 0) == 0;
    if (sim_target && spec.engine != "sim") {
      t.fail("target", "a \"sim:SERIAL\" target needs engine = \"sim\"");
    }
    if (spec.engine == "sim") {
      const std::string serial = spec.target.substr(4);
      if (std::find(sim_serials.begin(), sim_serials.end(), serial) == sim_serials.end()) {
        t.fail("target", fmt::format("no [[sim]] drive has serial \"{}\"", serial));
      }
    }
    c.jobs.push_back(std::move(spec));
  }
  if (auto s = root.table("safety")) c.safety = parse_safety(*s);
  return c;
}

}  // namespace nvmond
