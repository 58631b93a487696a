#include "pts/run.hpp"

#include <utility>

namespace nvmond {

Run make_run(const TestPlan& plan, RunHeader header, RunStatus status, std::vector<RoundRecord> rounds) {
  RunResults results = analyse(plan, header, rounds);
  return Run{std::move(header), status, std::move(rounds), std::move(results)};
}

}  // namespace nvmond
