#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "runmodel/run_codec.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

// Every field set, none at its default, so a field the codec forgets to
// write or read back shows as a difference.
RunHeader full_header() {
  RunHeader h;
  h.run_id = 42;
  h.test = "wsat";
  h.profile = PtsProfile::client;
  h.started_at = "2026-12-02T13:40:00Z";
  h.started_ns = 1'796'218'800'000'000'000;
  h.nvmond_version = "0.1.0";
  h.simulated_clock = true;
  h.target = {"sim:dc0", "SIM-DC0", "Sim DC", "1.0", 960'000'000'000ULL, 480'000'000'000ULL, 1.3,
              2.5e15,    70.0,      80.0,     4096};
  h.parameters = {{"round", "60s"}, {"rounds", "600"}};
  h.smart_before = SmartRecord{"2026-12-02T13:40:00Z", 41.5, 1000.0, 3, 7U, 0.005, 120U, 34U};
  h.smart_after = SmartRecord{"2026-12-02T23:40:00Z", 66.0, 9000.0, 4, 9U, std::nullopt, std::nullopt, std::nullopt};
  h.purge = PurgeRecord{"format", "Format NVM, SES=1"};
  h.purges = {{1, {"deallocate", "BLKDISCARD"}}};
  h.conditions = {{"purge-fallback", "purged by deallocate"}, {"write-cache-unknown", "a regular file"}};
  h.resumed = 2;
  h.resumable = true;
  h.failure = "every I/O failed";
  h.ended_at = "2026-12-02T23:40:00Z";
  return h;
}

TEST(RunCodec, EveryHeaderFieldSurvivesTheStoresBlob) {
  const RunHeader h = full_header();
  auto back = header_from_blob(header_blob(h));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == h) << header_blob(*back);
  EXPECT_EQ(header_blob(*back), header_blob(h));
  EXPECT_EQ(back->run_id, 42);
  EXPECT_TRUE(back->simulated_clock);
  ASSERT_TRUE(back->smart_after);
  EXPECT_EQ(back->smart_after->thermal_mgmt_t1_transitions, 9U);
  ASSERT_TRUE(back->smart_before);
  EXPECT_EQ(back->smart_before->latency_monitor_reads, 120U);  // a drive with the OCP latency monitor
  EXPECT_FALSE(back->smart_after->latency_monitor_threshold_s);
  ASSERT_EQ(back->purges.size(), 1u);
  EXPECT_EQ(back->purges[0].stage, 1u);
  EXPECT_EQ(back->purges[0].purge.method, "deallocate");
  EXPECT_EQ(back->target.rated_endurance_bytes, 2.5e15);
  EXPECT_EQ(back->target.logical_block_bytes, 4096u);
  EXPECT_EQ(back->failure, "every I/O failed");
}

TEST(RunCodec, AHeaderWithoutOptionalFieldsWritesNoneOfThem) {
  RunHeader h = full_header();
  h.run_id = 0;
  h.target.rated_dwpd.reset();
  h.target.warning_temp_c.reset();
  h.target.logical_block_bytes = 0;  // unknown
  h.smart_before.reset();
  h.smart_after.reset();
  h.purge.reset();
  h.purges.clear();
  h.conditions.clear();
  h.resumed = 0;
  h.resumable = false;
  h.failure.reset();
  h.ended_at.reset();
  h.profile.reset();
  const json j = header_json(h);
  EXPECT_EQ(j["run_id"], "");  // run.json's form of "no id yet"
  EXPECT_FALSE(j["target"].contains("rated_dwpd"));
  EXPECT_FALSE(j["target"].contains("warning_temp_c"));
  EXPECT_FALSE(j["target"].contains("logical_block_bytes"));
  EXPECT_EQ(j["drive"], json::object());
  for (const char* key :
       {"purge", "purges", "conditions", "resumed", "resumable", "failure", "ended_at", "status", "profile"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
  auto back = header_from_json(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == h) << header_blob(*back);
}

TEST(RunCodec, TheHeaderCarriesNoStatusAndIgnoresTheOneOldRowsHave) {
  json old = header_json(full_header());
  old["status"] = "running";  // rows written before the status lived only in the column
  auto back = header_from_json(old);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(header_json(*back).contains("status"));
}

TEST(RunCodec, RunJsonHeadAddsTheStatus) {
  const json j = run_head_json(full_header(), RunStatus::interrupted);
  EXPECT_EQ(j["status"], "interrupted");
  EXPECT_EQ(status_from_json(j).value(), RunStatus::interrupted);
}

TEST(RunCodec, AHeaderMissingWhatEveryRunHasIsRefusedByName) {
  for (const char* key : {"schema", "test", "started_at", "started_ns", "target", "parameters", "clock"}) {
    json j = header_json(full_header());
    j.erase(key);
    auto back = header_from_json(j);
    ASSERT_FALSE(back) << key;
    EXPECT_EQ(back.error().reason, ErrorReason::decode);
    EXPECT_NE(back.error().message.find(key), std::string::npos) << back.error().message;
  }
}

TEST(RunCodec, RefusesWhatIsNoHeader) {
  EXPECT_FALSE(header_from_blob("not json"));
  EXPECT_FALSE(header_from_blob("[]"));
  json j = header_json(full_header());
  j["clock"] = "wall";
  EXPECT_FALSE(header_from_json(j));
  j = header_json(full_header());
  j["run_id"] = "twelve";
  EXPECT_FALSE(header_from_json(j));
  j = header_json(full_header());
  j["parameters"]["rounds"] = 600;  // parameters are strings, as run
  EXPECT_FALSE(header_from_json(j));
}

// The store's log and the report print these: the field, not a library's words.
TEST(RunCodec, AFieldOfTheWrongTypeIsNamedByItsPath) {
  const auto message = [](const std::function<void(json&)>& spoil) {
    json j = header_json(full_header());
    spoil(j);
    auto back = header_from_json(j);
    return back ? std::string("decoded") : back.error().message;
  };
  EXPECT_EQ(message([](json& j) { j["target"]["capacity_bytes"] = "big"; }),
            "target.capacity_bytes: expected an unsigned integer");
  EXPECT_EQ(message([](json& j) { j["target"]["capacity_bytes"] = -1; }),
            "target.capacity_bytes: expected an unsigned integer");
  EXPECT_EQ(message([](json& j) { j["parameters"]["rounds"] = 600; }), "parameters.rounds: expected a string");
  EXPECT_EQ(message([](json& j) {
              j["conditions"] = json::array({{{"name", 1}, {"detail", ""}}});
            }),
            "conditions[0].name: expected a string");
  EXPECT_EQ(message([](json& j) { j["drive"]["smart_before"].erase("time"); }), "drive.smart_before.time: missing");
  EXPECT_EQ(message([](json& j) { j["run_id"] = "twelve"; }), "run_id: \"twelve\" is no run id");
  EXPECT_EQ(message([](json& j) { j = json::array(); }), "(top level): expected an object");
  EXPECT_EQ(message([](json& j) { j["profile"] = "consumer"; }), "profile: \"consumer\" is no profile");
  EXPECT_EQ(message([](json& j) { j["profile"] = 1; }), "profile: expected a string");
}

// run.json records the profile by name; a header from before profiles has
// none and reads back as such (those runs were all PTS-E's).
TEST(RunCodec, TheProfileIsRecordedByNameAndAbsentInOlderHeaders) {
  EXPECT_EQ(header_json(full_header())["profile"], "client");
  json old = header_json(full_header());
  old.erase("profile");
  auto back = header_from_json(old);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->profile);
  EXPECT_FALSE(header_json(*back).contains("profile"));
}

TEST(RunStatusText, EveryStatusMapsToItsWordAndBack) {
  const std::pair<RunStatus, const char*> all[] = {{RunStatus::running, "running"},
                                                   {RunStatus::paused, "paused"},
                                                   {RunStatus::completed, "completed"},
                                                   {RunStatus::interrupted, "interrupted"},
                                                   {RunStatus::failed, "failed"}};
  for (const auto& [status, text] : all) {
    EXPECT_EQ(to_text(status), text);
    auto back = run_status_from_text(text);
    ASSERT_TRUE(back) << text;
    EXPECT_EQ(*back, status) << text;
  }
}

TEST(RunStatusText, AnUnknownStatusIsAnErrorNotADefault) {
  for (const char* text : {"", "stopped", "Running", "done", "running "}) {
    auto s = run_status_from_text(text);
    ASSERT_FALSE(s) << text;
    EXPECT_EQ(s.error().reason, ErrorReason::decode);
  }
  EXPECT_FALSE(status_from_json(json{{"status", "stopped"}}));
  EXPECT_FALSE(status_from_json(json::object()));
}

TEST(ScheduleStateText, EveryStateMapsToItsWordAndBack) {
  const std::pair<ScheduleState, const char*> all[] = {
      {ScheduleState::idle, "idle"},       {ScheduleState::scheduled, "scheduled"},
      {ScheduleState::queued, "queued"},   {ScheduleState::waiting_cool, "waiting-cool"},
      {ScheduleState::running, "running"}, {ScheduleState::paused, "paused"},
      {ScheduleState::failed, "failed"}};
  for (const auto& [state, text] : all) {
    EXPECT_EQ(to_text(state), text);
    auto back = schedule_state_from_text(text);
    ASSERT_TRUE(back) << text;
    EXPECT_EQ(*back, state) << text;
  }
  EXPECT_FALSE(schedule_state_from_text("waiting_cool"));
  EXPECT_FALSE(schedule_state_from_text("completed"));
}

TEST(StopAs, APauseStaysRunningInTheStoreAndEveryOtherStopIsInterrupted) {
  EXPECT_EQ(stored_status(StopAs::paused), RunStatus::running);
  EXPECT_EQ(stored_status(StopAs::suspended), RunStatus::interrupted);
  EXPECT_EQ(stored_status(StopAs::interrupted), RunStatus::interrupted);
  EXPECT_EQ(outcome_status(StopAs::paused), RunStatus::paused);
  EXPECT_EQ(outcome_status(StopAs::suspended), RunStatus::interrupted);
  EXPECT_EQ(outcome_status(StopAs::interrupted), RunStatus::interrupted);
}

RunView full_view() {
  RunView v;
  v.id = 7;
  v.name = "dc0-wsat";
  v.test = "wsat";
  v.target = "sim:dc0";
  v.serial = "SIM-DC0";
  v.status = RunStatus::paused;
  v.round = 12;
  v.rounds_total = 600;
  v.phase = "test";
  v.iops = 81234.5;
  v.bytes_per_second = 332'740'608.0;
  v.eta = std::chrono::seconds(35'280);
  // Times a double of seconds holds exactly (the reply's form).
  v.started_ns = 1'764'547'200'000'000'000;
  v.ended_ns = 1'764'583'200'500'000'000;
  v.steady = false;
  return v;
}

TEST(RunViewCodec, ARunInAControlReplyReadsBackAsItWasSent) {
  const RunView v = full_view();
  const json j = run_view_json(v);
  EXPECT_EQ(j["status"], "paused");
  EXPECT_EQ(j["eta_s"], 35'280.0);
  auto back = run_view_from_json(json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == v) << run_view_json(*back).dump();
}

TEST(RunViewCodec, WhatIsNotKnownYetTravelsAsNull) {
  RunView v = full_view();
  v.eta.reset();
  v.ended_ns.reset();
  v.steady.reset();
  const json j = run_view_json(v);
  EXPECT_TRUE(j["eta_s"].is_null());
  EXPECT_TRUE(j["ended"].is_null());
  EXPECT_TRUE(j["steady"].is_null());
  auto back = run_view_from_json(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->eta);
  EXPECT_FALSE(back->ended_ns);
  EXPECT_FALSE(back->steady);
}

TEST(RunViewCodec, AnUnknownStatusInAReplyIsAnError) {
  json j = run_view_json(full_view());
  j["status"] = "stopped";
  auto back = run_view_from_json(j);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().reason, ErrorReason::decode);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
