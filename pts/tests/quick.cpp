// quick: the first look the drive reviews start with, CrystalDiskMark's four
// loads (SEQ 1 MiB at T1Q8 and T1Q1, RND 4 KiB at T1Q32 and T1Q1), each read
// then written, for one `round` each. No preconditioning and no steady
// state, and no purge unless asked: it shows the drive as it is, as the
// reviews run it on the empty drive and again once it is filled. Not a PTS
// test, and its basis says so.
#include "pts/tests/definition.hpp"

#include <fmt/core.h>

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

struct QuickLoad {
  AccessPattern pattern;
  std::uint64_t bs;
  unsigned queue_depth;
};

// CrystalDiskMark's default profile, in its order; one thread each.
constexpr QuickLoad kQuickLoads[] = {{AccessPattern::sequential, 1024 * kKiB, 8},
                                     {AccessPattern::sequential, 1024 * kKiB, 1},
                                     {AccessPattern::random, 4 * kKiB, 32},
                                     {AccessPattern::random, 4 * kKiB, 1}};

// The loads are the test, so neither threads nor queue depth is a parameter.
TestSchema quick_schema() {
  return not_pts(TestSchema{{},
                            "first look: SEQ 1MiB T1Q8 and T1Q1, RND 4KiB T1Q32 and T1Q1, each read then written",
                            {duration("round", std::chrono::seconds(5), "length of each load's read and its write"),
                             number("range", 1.0, 0.01, 1.0, "fraction of the target tested, from its start"),
                             boolean("purge", false, "purge the target first (the reviews' empty drive)")},
                            false},
                 "the drive reviews' first look (CrystalDiskMark's SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, "
                 "RND4K Q1T1): the drive as it is, one short round");
}

void quick_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  const Common c{1, 1, p.duration("round"), p.number("range"), p.boolean("purge"), false, {}};
  plan.purge = c.purge;
  Stage s;
  s.kind = "test";
  for (const auto& load : kQuickLoads) {
    Common at = c;
    at.queue_depth = load.queue_depth;
    for (const double read_pct : {100.0, 0.0}) {
      Element e = element(load.bs, read_pct, load.pattern, at);
      e.label += fmt::format(" T1Q{}", load.queue_depth);
      s.elements.push_back(std::move(e));
    }
  }
  s.max_rounds = 1;
  plan.stages.push_back(std::move(s));
}

}  // namespace

std::vector<TestDefinition> quick_tests() {
  return {{.name = "quick", .rank = 160, .schema = quick_schema(), .build = quick_plan}};
}

}  // namespace nvmond
