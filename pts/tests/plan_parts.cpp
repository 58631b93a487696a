#include "pts/tests/plan_parts.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace nvmond::plan_parts {

Common common(Params& p) {
  Common c;
  c.threads = static_cast<unsigned>(p.integer("threads"));
  c.queue_depth = static_cast<unsigned>(p.integer("queue_depth"));
  c.round = p.duration("round");
  c.range = p.number("range");
  c.purge = p.boolean("purge");
  c.precondition = p.boolean("precondition");
  c.rule.window = static_cast<int>(p.integer("window"));
  c.rule.max_rounds = static_cast<int>(p.integer("max_rounds"));
  return c;
}

std::string mix_label(double read_pct) {
  return fmt::format("{}/{}", static_cast<int>(read_pct), 100 - static_cast<int>(read_pct));
}

Element element(std::uint64_t bs, double read_pct, AccessPattern pattern, const Common& c) {
  Element e;
  e.block_sizes = {BlockSizeWeight{static_cast<std::uint32_t>(bs), 1}};
  e.read_pct = read_pct;
  e.pattern = pattern;
  e.threads = c.threads;
  e.queue_depth = c.queue_depth;
  e.range_fraction = c.range;
  e.duration = c.round;
  e.label = pattern == AccessPattern::sequential ? fmt::format("SEQ {} {}", block_size_label(bs),
                                                               read_pct >= 100 ? "read"
                                                               : read_pct <= 0 ? "write"
                                                                               : mix_label(read_pct))
                                                 : fmt::format("{} {}", block_size_label(bs), mix_label(read_pct));
  return e;
}

// In rounds so that progress is durable; the element's cursor carries on
// from round to round, so the writes sweep the whole range, again and
// again. PTS: 2 × the user capacity over the active range, whatever its size.
Stage wipc_stage(Params& p, const Common& c, std::uint64_t user_bytes, double range_fraction, int group,
                 std::uint64_t bs) {
  const double multiple = p.number("wipc_multiple");
  Common w = c;
  w.threads = static_cast<unsigned>(p.integer("wipc_threads"));
  w.queue_depth = static_cast<unsigned>(p.integer("wipc_queue_depth"));
  w.range = range_fraction;
  Stage s;
  s.phase = Phase::precondition;
  s.kind = "workload-independent";
  s.group = group;
  s.elements = {element(bs, 0, AccessPattern::sequential, w)};
  s.max_rounds = 0;
  s.byte_budget = static_cast<std::uint64_t>(multiple * static_cast<double>(user_bytes));
  return s;
}

std::vector<Element> mix_by_size(Params& p, const Common& c) {
  const auto sizes = p.bytes_list("block_sizes");
  std::vector<Element> elements;
  for (auto mix : p.integer_list("read_pcts")) {
    for (auto bs : sizes) elements.push_back(element(bs, static_cast<double>(mix), AccessPattern::random, c));
  }
  return elements;
}

Element at_load(std::uint64_t bs, double read_pct, const Common& c, std::int64_t threads, std::int64_t queue_depth) {
  Common load = c;
  load.threads = static_cast<unsigned>(std::max<std::int64_t>(1, threads));
  load.queue_depth = static_cast<unsigned>(std::max<std::int64_t>(1, queue_depth));
  Element e = element(bs, read_pct, AccessPattern::random, load);
  e.label += fmt::format(" T{}Q{}", load.threads, load.queue_depth);
  return e;
}

std::size_t find_element(const std::vector<Element>& elements, std::uint64_t bs, double read_pct) {
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].block_sizes[0].bytes == bs && elements[i].read_pct == read_pct) return i;
  }
  return elements.size() - 1;
}

Stage measured_stage(std::vector<Element> elements, const Common& c, std::vector<TrackedElement> tracked) {
  if (auto err = validate(c.rule)) throw ParamError(*err);
  Stage s;
  s.kind = "workload-dependent";
  s.elements = std::move(elements);
  s.max_rounds = c.rule.max_rounds;
  s.steady_state = SteadyStateTracking{c.rule, std::move(tracked), c.rule.max_rounds > 0};
  return s;
}

Stage measured_stage(std::vector<Element> elements, const Common& c, std::size_t tracked, TrackedVariable var) {
  return measured_stage(std::move(elements), c, {TrackedElement{tracked, var}});
}

void add_preparation(TestPlan& plan, Params& p, const Common& c) {
  plan.purge = c.purge;
  // Before build_plan scales it by `range`, tested_range_bytes is the capacity.
  if (c.precondition) plan.stages.push_back(wipc_stage(p, c, plan.tested_range_bytes, c.range, 0));
}

int rounds_within(Duration limit, Duration round) {
  return static_cast<int>(std::ceil(seconds(limit) / seconds(round)));
}

}  // namespace nvmond::plan_parts
