// run.json read back into the typed run: what nvmond writes decodes into a
// run that encodes to the same document, and older documents (the report's
// fixtures, written in the shape of earlier nvmond versions) read under the
// documented rules.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "runmodel/run_json.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

json fixture(const std::string& name) {
  std::ifstream f(test::fixture_path("runs/" + name));
  return json::parse(f);
}

nvmond::Run decoded(const json& j) {
  auto run = run_from_json(j);
  if (!run) ADD_FAILURE() << run.error().message;
  return run ? *run : nvmond::Run{};
}

// The documents today's writer produced (a run rebuilt from an old store,
// and the same plan run again): decoding loses nothing the writer wrote.
TEST(RunJson, WhatTheWriterWroteDecodesIntoARunThatEncodesToTheSameDocument) {
  for (const char* name : {"real-schema4/wsat/run.json", "real-schema4/wsat/rerun.json",
                           "real-schema4/suspended/run.json", "real-schema4/suspended/rerun.json"}) {
    const json original = fixture(name);
    // Through text, as a file is: an unknown number is NaN in memory, null on disk.
    const json again = json::parse(run_json(decoded(original)).dump());
    EXPECT_EQ(again, original) << name << ": " << json::diff(original, again).dump();
  }
}

TEST(RunJson, ARunThatHadNoStagesReadsAsOneStageNumberedByIndex) {
  const nvmond::Run run = decoded(fixture("wsat/run.json"));
  ASSERT_EQ(run.rounds.size(), 600u);
  for (const RoundRecord& r : run.rounds) {
    EXPECT_EQ(r.stage, 0);
    EXPECT_EQ(r.round, r.index);
  }
  // Its rounds' start comes from their text, which is all they had.
  EXPECT_EQ(rfc3339(run.rounds.front().started_at), "2026-11-02T08:00:00.000Z");
  EXPECT_EQ(run.results.drive->throttle_events.front().sources, std::vector<std::string>{"tmt1"});
}

TEST(RunJson, AHistogramKeepsTheBoundsItWasWrittenWith) {
  const json original = fixture("cbw/run.json");
  const nvmond::Run run = decoded(original);
  ASSERT_TRUE(run.results.main.histogram);
  EXPECT_EQ(json(run.results.main.histogram->bounds_s), original["histogram"]["bounds_s"]);
  EXPECT_EQ(run.results.main.histogram->counts.size(), original["histogram"]["counts"].size());
}

TEST(RunJson, AnOlderSlcSectionWithACacheSizeIsAFinding) {
  const nvmond::Run run = decoded(fixture("slc/run.json"));
  ASSERT_TRUE(run.results.main.slc);
  EXPECT_TRUE(run.results.main.slc->found);
  EXPECT_GT(run.results.main.slc->cache_bytes, 0u);
}

TEST(RunJson, AnAbsentRateIsUnknownAndAnAbsentCountIsZero) {
  json j = fixture("wsat/run.json");
  j["rounds"][2].erase("iops");
  j["rounds"][2]["ops"]["write"].erase("errors");
  const nvmond::Run run = decoded(j);
  EXPECT_TRUE(std::isnan(run.rounds[2].iops));
  EXPECT_EQ(run.rounds[2].ops[1]->errors, 0u);
}

TEST(RunJson, ABadFieldIsNamedByItsPath) {
  json j = fixture("wsat/run.json");
  j["rounds"][3]["iops"] = "fast";
  auto run = run_from_json(j);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().reason, ErrorReason::decode);
  EXPECT_NE(run.error().message.find("rounds[3].iops: expected a number"), std::string::npos) << run.error().message;

  j = fixture("wsat/run.json");
  j["steady_state"]["variable"] = "vibes";
  run = run_from_json(j);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("steady_state.variable"), std::string::npos) << run.error().message;
}

}  // namespace NVMOND_TEST_UNIT
}  // namespace
}  // namespace nvmond
