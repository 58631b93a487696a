#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "control/codec.hpp"
#include "control/framing.hpp"

namespace nvmond::control {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

// Each request through the codec and back; the wire form is what the daemon
// reads today (its "cmd" and keys).
TEST(ControlCodec, EveryRequestSurvivesTheRoundTrip) {
  const std::vector<Request> requests = {
      PingRequest{},
      StatusRequest{},
      ListRequest{},
      StartRequest{"wsat", "sim:a", {{"rounds", "3"}, {"round", "1s"}}, ""},
      StartRequest{"iops", "sim:a", {}, "client"},
      StopRequest{7},
      StopRequest{AllRuns{}},
      PauseRequest{AllRuns{}},
      PauseRequest{4},
      ResumeRequest{AllRuns{}},
      ResumeRequest{5},
      HistoryRequest{},
      HistoryRequest{"SN-A"},
      ShowRequest{9, std::nullopt, std::nullopt},
      ShowRequest{9, 1000, 20},
      SelfTestRequest{SelfTestAction::start, "SN-A", true},
      SelfTestRequest{SelfTestAction::start, "SN-A", false},
      SelfTestRequest{SelfTestAction::abort, "SN-A", false},
      SelfTestRequest{SelfTestAction::status, "SN-A", false},
  };
  for (const auto& r : requests) {
    const json wire = encode(r);
    SCOPED_TRACE(wire.dump());
    EXPECT_EQ(wire["cmd"], command_of(r));
    EXPECT_EQ(wire["protocol"], kProtocolVersion);
    const Request back = decode_request(unframe(frame(wire).substr(0, frame(wire).size() - 1)));
    EXPECT_EQ(back.index(), r.index());
    EXPECT_EQ(encode(back), wire);
  }
}

TEST(ControlCodec, TheKeysOfARequestAreTheOnesTheDaemonAlwaysRead) {
  EXPECT_EQ(encode(Request{ShowRequest{3, 1000, std::nullopt}}),
            json::parse(R"({"cmd":"show","run":3,"from":1000,"protocol":1})"));
  EXPECT_EQ(encode(Request{StartRequest{"wsat", "sim:a", {{"rounds", "3"}}, ""}}),
            json::parse(R"({"cmd":"start","test":"wsat","target":"sim:a","params":{"rounds":"3"},"protocol":1})"));
  // A profile is sent only when one is chosen: a request without one is the
  // one a daemon from before profiles reads.
  EXPECT_EQ(
      encode(Request{StartRequest{"iops", "sim:a", {}, "client"}}),
      json::parse(R"({"cmd":"start","test":"iops","target":"sim:a","params":{},"profile":"client","protocol":1})"));
  EXPECT_EQ(encode(Request{PauseRequest{4}}), json::parse(R"({"cmd":"pause","run":4,"protocol":1})"));
  EXPECT_EQ(encode(Request{StopRequest{7}}), json::parse(R"({"cmd":"stop","run":7,"protocol":1})"));
}

Run a_run() {
  Run r;
  r.id = 12;
  r.name = "manual-20260101T000000Z";
  r.test = "wsat";
  r.target = "sim:a";
  r.serial = "SN-A";
  r.status = RunStatus::running;
  r.round = 3;
  r.rounds_total = 600;
  r.phase = "steady";
  r.iops = 51234.5;
  r.bytes_per_second = 2.1e8;
  r.eta = std::chrono::seconds(3600);
  r.started_ns = 1700000000000000000;
  r.steady = false;
  return r;
}

Drive a_drive() {
  return {"SN-A", "Model A",       "/dev/nvme0", true, 40.0, 70.0,
          0.01,   {"temperature"}, true,         true, 3,    {"self_test_failed"}};
}

Schedule a_schedule() {
  return {"nightly", "wsat", "sim:a", "daily 02:00", ScheduleState::queued, "drive busy", 1.7e9, 12};
}

template <typename Reply>
void expect_round_trip(const Reply& reply) {
  const json wire = encode(reply);
  SCOPED_TRACE(wire.dump());
  EXPECT_EQ(wire["ok"], true);
  EXPECT_EQ(wire["protocol"], kProtocolVersion);
  EXPECT_EQ(encode(decode_reply<Reply>(wire)), wire);
}

TEST(ControlCodec, EveryReplySurvivesTheRoundTrip) {
  control::Run ended = a_run();
  ended.status = RunStatus::completed;
  ended.iops = std::numeric_limits<double>::quiet_NaN();
  ended.eta = std::nullopt;
  ended.ended_ns = 1700036000000000000;
  ended.steady = std::nullopt;
  Schedule idle = a_schedule();
  idle.next_start = std::nullopt;
  idle.run = std::nullopt;
  expect_round_trip(PingReply{});
  expect_round_trip(
      StatusReply{{a_drive(), Drive{"SN-B", "", "", false, std::nullopt, std::nullopt, std::nullopt, {}, false}},
                  {a_run(), ended},
                  {a_schedule()}});
  expect_round_trip(StatusReply{});
  expect_round_trip(ListReply{{a_schedule(), idle}});
  expect_round_trip(StartReply{"manual-x", false, 12, std::nullopt});
  expect_round_trip(StartReply{"manual-x", true, std::nullopt, "drive SN-A is busy with run 11"});
  expect_round_trip(StopReply{{12}});
  expect_round_trip(StopReply{{12, 13}});
  expect_round_trip(RunsActedOn{{12, 13}});
  expect_round_trip(HistoryReply{{ended, a_run()}});
  RoundRecord fob;
  fob.index = 1;
  fob.phase = "fob";
  fob.label = "4KiB 0/100";
  fob.iops = 9000.0;
  fob.ops[1] = OpSummary{};
  fob.ops[1]->ops = 540000;
  fob.temp_min_c = 40.0;
  fob.temp_max_c = 55.5;
  fob.histogram = {0, 3, 1};
  expect_round_trip(ShowReply{a_run(), {{0, "fob", 9000.0, fob}, {1, "fob", std::nullopt, RoundRecord{}}}, 2});
  expect_round_trip(ShowReply{ended, {}, std::nullopt});
  expect_round_trip(SelfTestReply{"SN-A",
                                  "",
                                  true,
                                  "extended",
                                  40,
                                  {{"extended", "failed_segments", 5, 1201}, {"short", "passed", std::nullopt, 1100}}});
  expect_round_trip(SelfTestReply{"SN-A", "short test started", false, std::nullopt, std::nullopt, {}});
}

TEST(ControlCodec, ASelfTestRequestNamesItsActionAndDrive) {
  EXPECT_EQ(encode(Request{SelfTestRequest{SelfTestAction::start, "SN-A", true}}),
            json::parse(R"({"cmd":"selftest","action":"start","drive":"SN-A","extended":true,"protocol":1})"));
  EXPECT_THROW(decode_request(json::parse(R"({"cmd":"selftest","action":"run","drive":"SN-A"})")), DecodeError);
  EXPECT_THROW(decode_request(json::parse(R"({"cmd":"selftest","action":"start"})")), DecodeError);
  try {
    decode_request(json::parse(R"({"cmd":"selftest","action":"begin","drive":"SN-A"})"));
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("\"action\""), std::string::npos) << e.what();
  }
}

TEST(ControlCodec, AnErrorReplyCarriesItsMessage) {
  const json wire = encode(ErrorReply{"no run 9"});
  EXPECT_EQ(wire["ok"], false);
  EXPECT_FALSE(reply_ok(wire));
  EXPECT_EQ(decode_error_reply(wire).error, "no run 9");
}

TEST(ControlCodec, AnErrorReplyCarriesItsReasonByItsStableText) {
  const json wire = encode(ErrorReply{"nobody may", ErrorReason::permission_denied});
  EXPECT_EQ(wire["reason"], "permission_denied");
  const ErrorReply back = decode_error_reply(wire);
  EXPECT_EQ(back.error, "nobody may");
  EXPECT_EQ(back.reason, ErrorReason::permission_denied);
  // No reason is no key, as a daemon from before reasons answered.
  EXPECT_FALSE(encode(ErrorReply{"no run 9"}).contains("reason"));
  EXPECT_EQ(decode_error_reply(json::parse(R"({"ok":false,"error":"permission denied"})")).reason, std::nullopt);
  // A newer daemon's reason this build does not know is a plain refusal
  // that keeps its sentence.
  const ErrorReply newer = decode_error_reply(json::parse(R"({"ok":false,"error":"later","reason":"sunspots"})"));
  EXPECT_EQ(newer.error, "later");
  EXPECT_EQ(newer.reason, std::nullopt);
  EXPECT_THROW(decode_error_reply(json::parse(R"({"ok":false,"error":"x","reason":3})")), DecodeError);
}

// The message of the DecodeError `f` throws.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ControlCodec, AMissingOrMistypedRequestKeyIsAnErrorNamingIt) {
  const auto req = [](const char* text) { return error_of([&] { decode_request(json::parse(text)); }); };
  EXPECT_EQ(req(R"({"cmd":"stop"})"), "\"run\": expected a run id");
  EXPECT_EQ(req(R"({"cmd":"stop","run":"7"})"), "\"run\": expected a run id");
  EXPECT_EQ(req(R"({"cmd":"pause","run":1.5})"), "\"run\": expected a run id");
  EXPECT_EQ(req(R"({"cmd":"show"})"), "\"run\": expected a run id");
  EXPECT_EQ(req(R"({"cmd":"show","run":1,"from":-1})"), "\"from\": expected a round index (0 or more)");
  EXPECT_EQ(req(R"({"cmd":"show","run":1,"limit":1001})"), "\"limit\": expected 1 to 1000 rounds");
  EXPECT_EQ(req(R"({"cmd":"start","target":"sim:a"})"), "\"test\": expected a test name");
  EXPECT_EQ(req(R"({"cmd":"start","test":"wsat"})"), "\"target\": expected a target");
  EXPECT_EQ(req(R"({"cmd":"start","test":"wsat","target":"sim:a","params":[]})"),
            "\"params\": expected an object of strings");
  EXPECT_EQ(req(R"({"cmd":"start","test":"wsat","target":"sim:a","params":{"rounds":3}})"),
            "\"params\": rounds must be a string");
  EXPECT_EQ(req(R"({"cmd":"history","drive":5})"), "\"drive\": expected a serial");
  EXPECT_EQ(req(R"({"cmd":5})"), "\"cmd\": expected a command name");
  EXPECT_EQ(req(R"({"cmd":"reboot"})"), "unknown command \"reboot\"");
}

// Stop, pause and resume act on every run only when "all" says so: a client
// that forgot the id gets an error, never every soak on the host stopped.
TEST(ControlCodec, StopPauseAndResumeNeedARunOrAllAndNotBoth) {
  const auto req = [](const char* text) { return error_of([&] { decode_request(json::parse(text)); }); };
  for (const char* cmd : {"stop", "pause", "resume"}) {
    SCOPED_TRACE(cmd);
    const json bare{{"cmd", cmd}};
    EXPECT_EQ(req(bare.dump().c_str()), "\"run\": expected a run id");
    json none = bare;
    none["all"] = false;
    EXPECT_NE(req(none.dump().c_str()).find("\"all\": expected true"), std::string::npos);
    json both = bare;
    both["all"] = true;
    both["run"] = 3;
    EXPECT_NE(req(both.dump().c_str()).find("not both"), std::string::npos);
    json all = bare;
    all["all"] = true;
    EXPECT_EQ(encode(decode_request(all))["all"], true);
  }
}

// A stop of one run still answers "run" for the nvmonctl of the release
// before, and this nvmonctl reads that older daemon's answer.
TEST(ControlCodec, AStopReplyOfOneRunIsReadByOlderAndNewerClients) {
  EXPECT_EQ(encode(StopReply{{12}})["run"], 12);
  const json older = json::parse(R"({"ok":true,"run":12,"protocol":1})");
  EXPECT_EQ(decode_reply<StopReply>(older).runs, std::vector<std::int64_t>{12});
}

TEST(ControlCodec, ADriveFromADaemonWithoutLinkHealthIsNotDegraded) {
  json wire = encode(StatusReply{{a_drive()}, {}, {}});
  ASSERT_EQ(wire["drives"][0]["link_degraded"], true);
  wire["drives"][0].erase("link_degraded");
  EXPECT_FALSE(decode_reply<StatusReply>(wire).drives.at(0).link_degraded);
}

TEST(ControlCodec, ADriveFromADaemonWithoutConditionsHasNone) {
  json wire = encode(StatusReply{{a_drive()}, {}, {}});
  ASSERT_EQ(wire["drives"][0]["conditions"], json::array({"self_test_failed"}));
  wire["drives"][0].erase("conditions");
  EXPECT_TRUE(decode_reply<StatusReply>(wire).drives.at(0).conditions.empty());
}

TEST(ControlCodec, ADriveFromADaemonWithoutErrorLogCountsHasNoneAndANegativeCountIsRefused) {
  json wire = encode(StatusReply{{a_drive()}, {}, {}});
  ASSERT_EQ(wire["drives"][0]["media_path_errors"], 3);
  wire["drives"][0].erase("media_path_errors");
  EXPECT_FALSE(decode_reply<StatusReply>(wire).drives.at(0).media_path_errors);
  wire["drives"][0]["media_path_errors"] = -1;
  EXPECT_EQ(error_of([&] { decode_reply<StatusReply>(wire); }),
            "\"drives[0].media_path_errors\": expected a count or null");
}

TEST(ControlCodec, AMissingOrMistypedReplyKeyIsAnErrorNamingIt) {
  json status = encode(StatusReply{{a_drive()}, {a_run()}, {}});
  status["runs"][0].erase("status");
  EXPECT_EQ(error_of([&] { decode_reply<StatusReply>(status); }), "\"runs[0].status\": expected a string");

  json drives = encode(StatusReply{{a_drive()}, {}, {}});
  drives["drives"][0]["up"] = "yes";
  EXPECT_EQ(error_of([&] { decode_reply<StatusReply>(drives); }), "\"drives[0].up\": expected true or false");

  json show = encode(ShowReply{a_run(), {}, std::nullopt});
  show["run"]["round"] = "3";
  EXPECT_EQ(error_of([&] { decode_reply<ShowReply>(show); }), "\"run.round\": expected a round count");

  json start = encode(StartReply{"manual-x", false, 12, std::nullopt});
  start.erase("run");
  EXPECT_EQ(error_of([&] { decode_reply<StartReply>(start); }), "\"run\": expected a run id");

  EXPECT_EQ(error_of([&] { decode_reply<ListReply>(json{{"ok", true}}); }), "\"schedules\": expected an array");
}

// A non-finite number goes out as null, which a reply reads as "none".
TEST(ControlCodec, ANonFiniteNumberArrivesAsNone) {
  control::Run r = a_run();
  r.iops = std::numeric_limits<double>::infinity();
  const std::string line = frame(encode(HistoryReply{{r}}));
  const auto back = decode_reply<HistoryReply>(unframe(line.substr(0, line.size() - 1)));
  EXPECT_TRUE(std::isnan(back.runs.at(0).iops));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::control
