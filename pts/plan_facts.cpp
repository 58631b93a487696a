#include "pts/plan_facts.hpp"

#include <utility>

namespace nvmond {

namespace {

StageFacts stage_facts(const Stage& s) {
  StageFacts f;
  f.phase = s.phase;
  f.kind = s.kind;
  f.label = s.label;
  f.group = s.group;
  for (const Element& e : s.elements) {
    f.elements.push_back(
        {e.label, e.block_sizes.front().bytes, e.read_pct, e.threads, e.queue_depth, e.range_fraction});
  }
  f.max_rounds = s.max_rounds;
  if (s.steady_state) {
    SteadyStateFacts ss{s.steady_state->rule, s.steady_state->stop_when_reached, {}};
    for (const TrackedElement& t : s.steady_state->tracked) ss.tracked.push_back({t.element, t.variable});
    f.steady_state = std::move(ss);
  }
  if (s.slc) f.slc = SlcFacts{s.slc->drop_fraction, s.slc->drop_rounds};
  f.iops_point_histograms = s.iops_point_histograms;
  f.points_of = s.points_of;
  f.preconditions = s.preconditions;
  return f;
}

Stage stage_of(const StageFacts& f) {
  Stage s;
  s.phase = f.phase;
  s.kind = f.kind;
  s.label = f.label;
  s.group = f.group;
  for (const ElementFacts& ef : f.elements) {
    Element e;
    e.label = ef.label;
    e.block_sizes = {BlockSizeWeight{ef.bs, 1}};
    e.read_pct = ef.read_pct;
    e.threads = ef.threads;
    e.queue_depth = ef.queue_depth;
    e.range_fraction = ef.range_fraction;
    s.elements.push_back(std::move(e));
  }
  s.max_rounds = f.max_rounds;
  if (f.steady_state) {
    SteadyStateTracking t;
    t.rule = f.steady_state->rule;
    for (const TrackedFacts& tf : f.steady_state->tracked) t.tracked.push_back({tf.element, tf.variable});
    t.stop_when_reached = f.steady_state->stop_when_reached;
    s.steady_state = std::move(t);
  }
  if (f.slc) s.slc = SlcDetection{f.slc->drop_fraction, f.slc->drop_rounds};
  s.iops_point_histograms = f.iops_point_histograms;
  s.points_of = f.points_of;
  s.preconditions = f.preconditions;
  return s;
}

}  // namespace

PlanRecord plan_record(const TestPlan& plan) {
  PlanRecord r;
  for (const Stage& s : plan.stages) r.stages.push_back(stage_facts(s));
  for (const QosCheck& q : plan.qos) r.qos.push_back({q.op, q.bs, q.quantile, q.limit_seconds, q.element});
  r.compare_label = plan.compare_label;
  return r;
}

TestPlan plan_from_record(const std::string& test, const PlanRecord& record) {
  TestPlan plan;
  plan.test = test;
  for (const StageFacts& f : record.stages) plan.stages.push_back(stage_of(f));
  for (const QosFacts& q : record.qos) plan.qos.push_back({q.op, q.bs, q.quantile, q.limit_seconds, q.element});
  plan.compare_label = record.compare_label;
  return plan;
}

}  // namespace nvmond
