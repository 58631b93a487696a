#include <gtest/gtest.h>

#include "pts/plan.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

const TargetFacts kDrive{3'840'000'000'000ULL, 1.3};

// The last measuring stage (a demand-intensity test's histogram rounds follow its sweep).
const Stage& test_stage(const TestPlan& p) {
  for (auto s = p.stages.rbegin(); s != p.stages.rend(); ++s) {
    if (s->phase == Phase::test) return *s;
  }
  return p.stages.back();
}

TEST(TestPlan, IopsMatrixHasFiftySixElementsInTheSpecificationsOrder) {
  TestPlan p = build_plan("iops", {}, kDrive);
  const Stage& s = test_stage(p);
  ASSERT_EQ(s.elements.size(), 56u);
  const std::uint32_t sizes[] = {1048576, 131072, 65536, 32768, 16384, 8192, 4096, 512};
  const double mixes[] = {100, 95, 65, 50, 35, 5, 0};
  for (std::size_t m = 0; m < 7; ++m) {
    for (std::size_t b = 0; b < 8; ++b) {
      const Element& e = s.elements[m * 8 + b];
      EXPECT_EQ(e.block_sizes.at(0).bytes, sizes[b]) << e.label;
      EXPECT_EQ(e.read_pct, mixes[m]) << e.label;
      EXPECT_EQ(e.threads, 4u);
      EXPECT_EQ(e.queue_depth, 32u);
      EXPECT_EQ(e.duration, std::chrono::seconds(60));
      EXPECT_EQ(e.pattern, AccessPattern::random);
    }
  }
  EXPECT_EQ(s.elements[0].label, "1MiB 100/0");
  EXPECT_EQ(s.elements[55].label, "0.5KiB 0/100");
  // Steady state is tracked on 4 KiB random writes, at most 25 rounds.
  ASSERT_TRUE(s.steady_state);
  EXPECT_EQ(s.elements[s.steady_state->tracked.front().element].label, "4KiB 0/100");
  EXPECT_EQ(s.max_rounds, 25);
  EXPECT_TRUE(s.steady_state->stop_when_reached);
  // Purge, then SEQ 128 KiB writes of twice the range.
  EXPECT_TRUE(p.purge);
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].kind, "workload-independent");
  EXPECT_EQ(p.stages[0].elements.at(0).pattern, AccessPattern::sequential);
  EXPECT_EQ(p.stages[0].elements.at(0).block_sizes.at(0).bytes, 131072u);
  EXPECT_EQ(*p.stages[0].byte_budget, 2 * kDrive.capacity_bytes);
}

TEST(TestPlan, ParametersOverrideTheDefaultsAndAreRecorded) {
  TestPlan p = build_plan("iops",
                          {{"block_sizes", "4KiB"},
                           {"read_pcts", "0"},
                           {"round", "2s"},
                           {"threads", "1"},
                           {"queue_depth", "4"},
                           {"window", "4"},
                           {"precondition", "false"}},
                          kDrive);
  ASSERT_EQ(p.stages.size(), 1u);
  ASSERT_EQ(p.stages[0].elements.size(), 1u);
  EXPECT_EQ(p.stages[0].elements[0].duration, std::chrono::seconds(2));
  EXPECT_EQ(p.stages[0].steady_state->rule.window, 4);
  EXPECT_EQ(p.parameters.at("queue_depth"), "4");
  EXPECT_EQ(p.parameters.at("max_rounds"), "25");  // a default is recorded too
}

TEST(TestPlan, UnknownParametersAndBadValuesAreRefusedByName) {
  EXPECT_THROW(build_plan("iops", {{"treads", "4"}}, kDrive), ParamError);
  EXPECT_THROW(build_plan("iops", {{"window", "3"}}, kDrive), ParamError);
  EXPECT_THROW(build_plan("wsat", {{"round", "soon"}}, kDrive), ParamError);
  EXPECT_THROW(build_plan("nosuch", {}, kDrive), ParamError);
  try {
    build_plan("wsat", {{"treads", "4"}}, kDrive);
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("treads"), std::string::npos);
  }
}

TEST(TestPlan, CbwUsesTheJesd219MixFourKibAlignedWithItsZonesOverTheWholeRangeAtFortySixty) {
  TestPlan p = build_plan("cbw", {}, kDrive);
  for (const Stage& s : p.stages) {
    for (const Element& e : s.elements) {
      std::uint32_t total = 0, w4k = 0;
      for (const auto& b : e.block_sizes) {
        total += b.weight;
        if (b.bytes == 4096) w4k = b.weight;
      }
      EXPECT_EQ(e.block_sizes.size(), 12u);
      EXPECT_EQ(total, 100u);
      EXPECT_EQ(w4k, 67u);
      EXPECT_EQ(e.block_sizes.front().bytes, 512u);
      EXPECT_EQ(e.block_sizes.back().bytes, 65536u);
      EXPECT_EQ(e.block_align, 4096u);
      EXPECT_EQ(e.pattern, AccessPattern::random);
      EXPECT_DOUBLE_EQ(e.range_fraction, 1.0);
      ASSERT_EQ(e.zones.size(), 3u);
      const double access[] = {50, 30, 20}, range[] = {5, 15, 80};
      for (std::size_t z = 0; z < 3; ++z) {
        EXPECT_DOUBLE_EQ(e.zones[z].access_pct, access[z]);
        EXPECT_DOUBLE_EQ(e.zones[z].range_pct, range[z]);
      }
    }
  }
  // JESD219's 40 % reads / 60 % writes in the sweep.
  EXPECT_EQ(test_stage(p).elements.at(0).read_pct, 40);
  EXPECT_EQ(test_stage(p).elements.at(0).label, "CBW 40/60 T32Q32");
}

// After the sweep, a dedicated 10-minute round at each of its max, mid and
// min IOPS points (the PTS scripts' histogram runs); off on request.
TEST(TestPlan, DemandIntensitySweepsAreFollowedByDedicatedHistogramRounds) {
  for (const std::string test : {"cbw", "dirth"}) {
    TestPlan p = build_plan(test, {}, kDrive);
    // CBW's pre-write stage comes last.
    ASSERT_EQ(p.stages.size(), test == "cbw" ? 4u : 3u) << test;
    const Stage& h = p.stages[2];
    EXPECT_EQ(h.phase, Phase::histogram);
    ASSERT_TRUE(h.points_of);
    EXPECT_EQ(*h.points_of, 1u);
    EXPECT_EQ(h.max_rounds, 1);
    ASSERT_EQ(h.elements.size(), p.stages[1].elements.size());
    for (std::size_t i = 0; i < h.elements.size(); ++i) {
      EXPECT_EQ(h.elements[i].label, p.stages[1].elements[i].label);
      EXPECT_EQ(h.elements[i].duration, std::chrono::minutes(10));
    }
    EXPECT_EQ(p.parameters.at("histogram_rounds"), "true");
    EXPECT_EQ(build_plan(test, {{"histogram_rounds", "false"}}, kDrive).stages.size(), test == "cbw" ? 3u : 2u);
    EXPECT_EQ(build_plan(test, {{"histogram_round", "2s"}}, kDrive).stages[2].elements[0].duration,
              std::chrono::seconds(2));
  }
}

TEST(TestPlan, CbwPreconditionsWithItsOwnPatternThenSweepsThreadsAndQueueDepthsFromHighToLow) {
  TestPlan p = build_plan("cbw", {}, kDrive);
  EXPECT_TRUE(p.purge);
  ASSERT_EQ(p.stages.size(), 4u);
  // Workload-dependent preconditioning: the CBW pattern at 0/100 at the
  // highest load, until its IOPS is steady over 5 rounds, at most 25; no
  // SEQ 128 KiB WIPC before it.
  const Stage& pre = p.stages[0];
  EXPECT_EQ(pre.phase, Phase::precondition);
  EXPECT_EQ(pre.kind, "workload-dependent");
  EXPECT_FALSE(pre.byte_budget);
  ASSERT_EQ(pre.elements.size(), 1u);
  EXPECT_EQ(pre.elements[0].read_pct, 0);
  EXPECT_EQ(pre.elements[0].threads, 32u);
  EXPECT_EQ(pre.elements[0].queue_depth, 32u);
  EXPECT_EQ(pre.elements[0].duration, std::chrono::seconds(60));
  ASSERT_TRUE(pre.steady_state);
  ASSERT_EQ(pre.steady_state->tracked.size(), 1u);
  EXPECT_EQ(pre.steady_state->tracked[0].element, 0u);
  EXPECT_EQ(pre.steady_state->tracked[0].variable, TrackedVariable::iops);
  EXPECT_EQ(pre.steady_state->rule.window, 5);
  EXPECT_TRUE(pre.steady_state->stop_when_reached);
  EXPECT_EQ(pre.max_rounds, 25);
  // The sweep: thread counts outer, queue depths inner, both descending.
  const Stage& sweep = p.stages[1];
  EXPECT_EQ(sweep.phase, Phase::test);
  EXPECT_FALSE(sweep.purge_before);
  ASSERT_EQ(sweep.elements.size(), 49u);
  const unsigned levels[] = {32, 16, 8, 6, 4, 2, 1};
  for (std::size_t t = 0; t < 7; ++t) {
    for (std::size_t q = 0; q < 7; ++q) {
      const Element& e = sweep.elements[t * 7 + q];
      EXPECT_EQ(e.threads, levels[t]) << e.label;
      EXPECT_EQ(e.queue_depth, levels[q]) << e.label;
      EXPECT_EQ(e.read_pct, 40) << e.label;
    }
  }
  EXPECT_EQ(sweep.elements.back().label, "CBW 40/60 T1Q1");
  // Repeated until the IOPS of the highest-load point is steady, and its
  // histograms kept at the max, mid and min IOPS points.
  ASSERT_TRUE(sweep.steady_state);
  ASSERT_EQ(sweep.steady_state->tracked.size(), 1u);
  EXPECT_EQ(sweep.elements[sweep.steady_state->tracked[0].element].label, "CBW 40/60 T32Q32");
  EXPECT_EQ(sweep.steady_state->tracked[0].variable, TrackedVariable::iops);
  EXPECT_EQ(sweep.steady_state->rule.window, 5);
  EXPECT_EQ(sweep.max_rounds, 25);
  EXPECT_TRUE(sweep.iops_point_histograms);
}

TEST(TestPlan, CbwTracksTheHighestLoadOfAGridGivenInAnyOrder) {
  TestPlan p = build_plan("cbw",
                          {{"thread_counts", "1,4"},
                           {"queue_depths", "1,32"},
                           {"read_pct", "60"},
                           {"precondition", "false"},
                           {"histogram_rounds", "false"},
                           {"prewrite_rounds", "0"}},
                          kDrive);
  ASSERT_EQ(p.stages.size(), 1u);
  const Stage& s = p.stages[0];
  ASSERT_EQ(s.elements.size(), 4u);
  EXPECT_EQ(s.elements[s.steady_state->tracked[0].element].label, "CBW 60/40 T4Q32");
}

// The public PTS CBW scripts' inter-round pre-write: before each sweep round,
// 5 rounds of the CBW pattern at 0/100 at the preconditioning's load; a
// stage of its own, run only from the sweep's, never before the histogram
// rounds.
TEST(TestPlan, CbwPreWritesBeforeEachSweepRoundWithItsPatternAllWritesAtThePreconditioningLoad) {
  TestPlan p = build_plan("cbw", {}, kDrive);
  ASSERT_EQ(p.stages.size(), 4u);
  const Stage& sweep = p.stages[1];
  ASSERT_TRUE(sweep.prewrite);
  EXPECT_EQ(*sweep.prewrite, 3u);  // last: the sweep and the histogram rounds keep their stage indices
  EXPECT_FALSE(p.stages[0].prewrite);
  EXPECT_FALSE(p.stages[2].prewrite);
  const Stage& w = p.stages[3];
  EXPECT_EQ(w.phase, Phase::prewrite);
  EXPECT_EQ(w.max_rounds, 5);
  EXPECT_FALSE(w.steady_state);
  EXPECT_FALSE(w.byte_budget);
  ASSERT_EQ(w.elements.size(), 1u);
  const Element& e = w.elements[0];
  const Element& pre = p.stages[0].elements.at(0);
  EXPECT_EQ(e.label, "CBW 0/100 T32Q32 pre-write");
  EXPECT_EQ(e.read_pct, 0);
  EXPECT_EQ(e.threads, 32u);
  EXPECT_EQ(e.queue_depth, 32u);
  EXPECT_EQ(e.duration, std::chrono::seconds(60));
  EXPECT_EQ(e.block_sizes.size(), pre.block_sizes.size());
  EXPECT_EQ(e.zones.size(), 3u);
  EXPECT_EQ(e.block_align, 4096u);
  EXPECT_EQ(p.parameters.at("prewrite_rounds"), "5");
  // The operator changes its count (its load and length are the
  // preconditioning's) or turns it off.
  TestPlan two =
      build_plan("cbw", {{"prewrite_rounds", "2"}, {"threads", "4"}, {"queue_depth", "8"}, {"round", "5s"}}, kDrive);
  const Stage& w2 = two.stages.at(*two.stages.at(1).prewrite);
  EXPECT_EQ(w2.max_rounds, 2);
  EXPECT_EQ(w2.elements.at(0).threads, 4u);
  EXPECT_EQ(w2.elements.at(0).queue_depth, 8u);
  EXPECT_EQ(w2.elements.at(0).duration, std::chrono::seconds(5));
  TestPlan off = build_plan("cbw", {{"prewrite_rounds", "0"}}, kDrive);
  EXPECT_EQ(off.stages.size(), 3u);
  EXPECT_FALSE(off.stages[1].prewrite);
  // DIRTH has none.
  for (const Stage& s : build_plan("dirth", {}, kDrive).stages) EXPECT_FALSE(s.prewrite);
  EXPECT_THROW(build_plan("dirth", {{"prewrite_rounds", "5"}}, kDrive), ParamError);
}

// PTS-E DIRTH: RND 4 KiB writes preconditioned at T32Q32 until steady, then
// the 7 x 7 sweep from high to low until its highest load is steady, with
// the max/mid/min histograms: CBW's shape over another pattern.
TEST(TestPlan, DirthPreconditionsWithRandomFourKibWritesAtTheHighestLoadThenSweepsFromHighToLow) {
  TestPlan p = build_plan("dirth", {}, kDrive);
  EXPECT_TRUE(p.purge);
  ASSERT_EQ(p.stages.size(), 3u);
  const Stage& pre = p.stages[0];
  EXPECT_EQ(pre.phase, Phase::precondition);
  EXPECT_EQ(pre.kind, "workload-dependent");
  EXPECT_FALSE(pre.byte_budget);
  ASSERT_EQ(pre.elements.size(), 1u);
  EXPECT_EQ(pre.elements[0].label, "4KiB 0/100 T32Q32");
  EXPECT_EQ(pre.elements[0].read_pct, 0);
  EXPECT_EQ(pre.elements[0].pattern, AccessPattern::random);
  ASSERT_TRUE(pre.steady_state);
  ASSERT_EQ(pre.steady_state->tracked.size(), 1u);
  EXPECT_EQ(pre.steady_state->tracked[0].variable, TrackedVariable::iops);
  EXPECT_EQ(pre.steady_state->rule.window, 5);
  EXPECT_TRUE(pre.steady_state->stop_when_reached);
  EXPECT_EQ(pre.max_rounds, 25);

  const Stage& sweep = p.stages[1];
  EXPECT_EQ(sweep.phase, Phase::test);
  ASSERT_EQ(sweep.elements.size(), 49u);
  const unsigned levels[] = {32, 16, 8, 6, 4, 2, 1};
  for (std::size_t t = 0; t < 7; ++t) {
    for (std::size_t q = 0; q < 7; ++q) {
      const Element& e = sweep.elements[t * 7 + q];
      EXPECT_EQ(e.threads, levels[t]) << e.label;
      EXPECT_EQ(e.queue_depth, levels[q]) << e.label;
      EXPECT_EQ(e.read_pct, 0) << e.label;
      ASSERT_EQ(e.block_sizes.size(), 1u) << e.label;
      EXPECT_EQ(e.block_sizes[0].bytes, 4096u) << e.label;
      EXPECT_TRUE(e.zones.empty()) << e.label;  // uniform over the range, unlike CBW
      EXPECT_EQ(e.pattern, AccessPattern::random) << e.label;
      EXPECT_EQ(e.duration, std::chrono::seconds(60)) << e.label;
    }
  }
  EXPECT_EQ(sweep.elements.front().label, "4KiB 0/100 T32Q32");
  EXPECT_EQ(sweep.elements.back().label, "4KiB 0/100 T1Q1");
  ASSERT_TRUE(sweep.steady_state);
  ASSERT_EQ(sweep.steady_state->tracked.size(), 1u);
  EXPECT_EQ(sweep.elements[sweep.steady_state->tracked[0].element].label, "4KiB 0/100 T32Q32");
  EXPECT_EQ(sweep.steady_state->tracked[0].variable, TrackedVariable::iops);
  EXPECT_EQ(sweep.steady_state->rule.window, 5);
  EXPECT_EQ(sweep.max_rounds, 25);
  EXPECT_TRUE(sweep.iops_point_histograms);
}

// An operator's access pattern is the preconditioning's too (CBW's writes
// only), and the tracked point is the highest load whatever the order.
TEST(TestPlan, DirthPreconditionsWithTheOperatorsMixAndTracksTheHighestLoadOfAnyGrid) {
  TestPlan p = build_plan("dirth",
                          {{"bs", "8KiB"},
                           {"read_pct", "65"},
                           {"thread_counts", "1,4"},
                           {"queue_depths", "2,16"},
                           {"threads", "4"},
                           {"queue_depth", "16"},
                           {"window", "4"},
                           {"max_rounds", "9"},
                           {"histogram_rounds", "false"}},
                          kDrive);
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].elements.at(0).label, "8KiB 65/35 T4Q16");
  EXPECT_EQ(p.stages[0].steady_state->rule.window, 4);
  EXPECT_EQ(p.stages[0].max_rounds, 9);
  const Stage& s = p.stages[1];
  ASSERT_EQ(s.elements.size(), 4u);
  EXPECT_EQ(s.elements[0].label, "8KiB 65/35 T1Q2");
  EXPECT_EQ(s.elements[s.steady_state->tracked[0].element].label, "8KiB 65/35 T4Q16");
  EXPECT_EQ(s.steady_state->rule.window, 4);
  EXPECT_EQ(s.max_rounds, 9);
  EXPECT_EQ(build_plan("dirth", {{"precondition", "false"}, {"histogram_rounds", "false"}}, kDrive).stages.size(), 1u);
  EXPECT_THROW(build_plan("dirth", {{"thread_counts", ""}}, kDrive), ParamError);
  EXPECT_THROW(build_plan("dirth", {{"wipc_multiple", "2"}}, kDrive), ParamError);  // no SEQ WIPC to size
}

TEST(TestPlan, LatencyCasesAreThreeSizesByThreeMixesAtOneThreadQueueDepthOne) {
  TestPlan p = build_plan("latency", {}, kDrive);
  const Stage& s = test_stage(p);
  ASSERT_EQ(s.elements.size(), 9u);
  // Mix outer, block size inner, largest first: the sources' 8, 4, 0.5 KiB.
  const char* labels[] = {"8KiB 100/0",   "4KiB 100/0", "0.5KiB 100/0", "8KiB 65/35",  "4KiB 65/35",
                          "0.5KiB 65/35", "8KiB 0/100", "4KiB 0/100",   "0.5KiB 0/100"};
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(s.elements[i].label, labels[i]);
    EXPECT_EQ(s.elements[i].threads, 1u);
    EXPECT_EQ(s.elements[i].queue_depth, 1u);
  }
  EXPECT_EQ(s.steady_state->tracked.front().variable, TrackedVariable::mean_latency);
  TestPlan sweep = build_plan("latency", {{"sweep", "true"}}, kDrive);
  EXPECT_EQ(test_stage(sweep).elements.size(), 9u + 3u * 6u);
  EXPECT_EQ(test_stage(sweep).elements.back().label, "4KiB 65/35 T4Q32");
}

TEST(TestPlan, WsatIsSixHundredOneMinuteRoundsJudgedAtTheEnd) {
  TestPlan p = build_plan("wsat", {}, kDrive);
  ASSERT_EQ(p.stages.size(), 1u);  // purge, no preconditioning: the FOB is the point
  EXPECT_TRUE(p.purge);
  const Stage& s = p.stages[0];
  EXPECT_EQ(s.max_rounds, 600);
  EXPECT_EQ(s.elements.at(0).label, "4KiB 0/100");
  EXPECT_FALSE(s.byte_budget);
  EXPECT_FALSE(s.steady_state->stop_when_reached);
  EXPECT_EQ(s.steady_state->rule.max_rounds, 0);
  TestPlan budget = build_plan("wsat", {{"capacity_multiple", "4"}}, kDrive);
  EXPECT_EQ(*budget.stages[0].byte_budget, 4 * kDrive.capacity_bytes);
}

// PTS: preconditioning writes twice the user capacity over the active
// range, so a smaller range is written over more often, not less.
TEST(TestPlan, PreconditioningWritesTwiceTheCapacityOverASmallerRange) {
  TestPlan p = build_plan("precondition", {{"range", "0.5"}}, kDrive);
  ASSERT_EQ(p.stages.size(), 1u);
  EXPECT_EQ(*p.stages[0].byte_budget, 2 * kDrive.capacity_bytes);
  EXPECT_DOUBLE_EQ(p.stages[0].elements.at(0).range_fraction, 0.5);
}

// The SLC fill writes the range once, through however many rounds that takes.
TEST(TestPlan, TheSlcFillEndsAfterOnePassOrTheDropNotAfterARoundCount) {
  TestPlan p = build_plan("slc", {}, kDrive);
  const Stage& s = p.stages.back();
  EXPECT_EQ(s.max_rounds, 0);
  EXPECT_EQ(*s.byte_budget, kDrive.capacity_bytes);
  EXPECT_EQ(s.elements.at(0).pattern, AccessPattern::sequential);
}

TEST(TestPlan, ThroughputIsOneSubTestPerBlockSizeWithItsOwnPurgePreconditioningAndSteadyState) {
  TestPlan p = build_plan("throughput", {}, kDrive);
  EXPECT_TRUE(p.purge);  // the first sub-test's purge is the run's
  ASSERT_EQ(p.stages.size(), 4u);
  const std::uint32_t sizes[] = {1048576, 131072};
  for (std::size_t i = 0; i < 2; ++i) {
    const Stage& wipc = p.stages[2 * i];
    const Stage& measured = p.stages[2 * i + 1];
    EXPECT_EQ(wipc.phase, Phase::precondition);
    EXPECT_EQ(wipc.purge_before, i > 0) << i;
    ASSERT_EQ(wipc.elements.size(), 1u);
    EXPECT_EQ(wipc.elements[0].pattern, AccessPattern::sequential);
    EXPECT_EQ(wipc.elements[0].block_sizes.at(0).bytes, sizes[i]);  // WIPC at the sub-test's block size
    EXPECT_EQ(*wipc.byte_budget, 2 * kDrive.capacity_bytes);
    ASSERT_EQ(measured.elements.size(), 2u);
    for (const Element& e : measured.elements) {
      EXPECT_EQ(e.block_sizes.at(0).bytes, sizes[i]);
      EXPECT_EQ(e.pattern, AccessPattern::sequential);
    }
    // Reads, then writes; steady state on this block size's writes.
    EXPECT_EQ(measured.elements[0].read_pct, 100);
    EXPECT_EQ(measured.elements[1].read_pct, 0);
    ASSERT_TRUE(measured.steady_state);
    EXPECT_EQ(measured.steady_state->tracked.size(), 1u);
    EXPECT_EQ(measured.steady_state->tracked[0].element, 1u);
    EXPECT_EQ(measured.steady_state->tracked[0].variable, TrackedVariable::bytes_per_second);
    EXPECT_TRUE(measured.steady_state->stop_when_reached);
    EXPECT_EQ(measured.max_rounds, 25);
  }
  TestPlan bare = build_plan("throughput", {{"precondition", "false"}, {"block_sizes", "128KiB,1MiB"}}, kDrive);
  ASSERT_EQ(bare.stages.size(), 2u);
  EXPECT_EQ(bare.stages[0].elements[0].block_sizes.at(0).bytes, 131072u);  // the order given
  EXPECT_TRUE(bare.stages[1].purge_before);
}

TEST(TestPlan, WsatSpecVariantStopsAtSixHoursOrFourTimesTheCapacityWhicheverFirst) {
  TestPlan p = build_plan("wsat", {{"variant", "spec"}}, kDrive);
  const Stage& s = test_stage(p);
  EXPECT_EQ(s.max_rounds, 360);  // 6 h of 1-minute rounds
  ASSERT_TRUE(s.byte_budget);
  EXPECT_EQ(*s.byte_budget, 4 * kDrive.capacity_bytes);
  EXPECT_EQ(p.parameters.at("variant"), "spec");
  EXPECT_EQ(p.parameters.at("capacity_multiple"), "4");
  EXPECT_EQ(test_stage(build_plan("wsat", {{"variant", "spec"}, {"round", "30s"}}, kDrive)).max_rounds, 720);
  // rounds still caps it; a given capacity_multiple replaces the variant's.
  EXPECT_EQ(test_stage(build_plan("wsat", {{"variant", "spec"}, {"rounds", "10"}}, kDrive)).max_rounds, 10);
  EXPECT_FALSE(test_stage(build_plan("wsat", {{"variant", "spec"}, {"capacity_multiple", "0"}}, kDrive)).byte_budget);
  // The soak is the default, and says so.
  EXPECT_EQ(build_plan("wsat", {}, kDrive).parameters.at("variant"), "soak");
  EXPECT_THROW(build_plan("wsat", {{"variant", "pts"}}, kDrive), ParamError);
}

TEST(TestPlan, MixedComparesAReducedRangeAfterAFreshPurge) {
  TestPlan p = build_plan("mixed", {}, kDrive);
  ASSERT_EQ(p.stages.size(), 4u);
  EXPECT_EQ(p.stages[2].group, 1);
  EXPECT_TRUE(p.stages[2].purge_before);
  EXPECT_EQ(*p.stages[2].byte_budget, static_cast<std::uint64_t>(2 * 0.75 * 3.84e12));
  EXPECT_DOUBLE_EQ(p.stages[3].elements.at(0).range_fraction, 0.75);
  EXPECT_DOUBLE_EQ(p.stages[1].elements.at(0).range_fraction, 1.0);
  EXPECT_EQ(p.stages[1].elements.at(0).label, "8KiB 70/30");
  EXPECT_EQ(p.compare_label, "reduced range 75%");
}

TEST(TestPlan, EnduranceWritesTheTargetDwpdOfTheCapacity) {
  TestPlan p = build_plan("endurance", {{"duration", "10h"}, {"round", "1h"}}, kDrive);
  const Element& e = test_stage(p).elements.at(0);
  EXPECT_NEAR(e.rate_bytes_per_second, 1.3 * 3.84e12 / 86400, 1);
  EXPECT_EQ(test_stage(p).max_rounds, 10);
}

TEST(TestPlan, QosChecksReadAndWriteQuantilesAgainstTheDatasheet) {
  TestPlan p = build_plan("qos", {{"read_limit", "300us"}}, kDrive);
  ASSERT_EQ(p.qos.size(), 2u);
  EXPECT_EQ(p.qos[0].op, IoOp::read);
  EXPECT_DOUBLE_EQ(p.qos[0].limit_seconds, 300e-6);
  EXPECT_DOUBLE_EQ(p.qos[1].limit_seconds, 2e-3);
  EXPECT_DOUBLE_EQ(p.qos[1].quantile, 0.999);
  EXPECT_EQ(test_stage(p).elements[p.qos[1].element].read_pct, 0);
}

TEST(TestPlan, EveryNamedTestBuildsWithItsDefaults) {
  for (const auto& name : test_names()) {
    TestPlan p = build_plan(name, {}, kDrive);
    EXPECT_EQ(p.test, name);
    for (const auto& s : p.stages) EXPECT_FALSE(s.elements.empty()) << name;
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
