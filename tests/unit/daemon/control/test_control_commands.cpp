#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "daemon/control/control_commands.hpp"
#include "daemon/control/control_server.hpp"
#include "pts/catalog.hpp"
#include "tests/unit/schedule/fake_soak_control.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

struct Fixture {
  Fixture() { soaks.serial_of = {{"sim:a", "SN-A"}, {"sim:SN-A", "SN-A"}, {"sim:b", "SN-B"}}; }
  FakeSoakControl soaks;
  SoakScheduler scheduler{soaks, nullptr};
  ManualClock clock;
  std::vector<DriveSummary> drives{{"SN-A", "Model A", "/dev/nvme0", true, 40.0, 70.0, 0.01, {}, false},
                                   {"SN-B", "Model B", "/dev/nvme1", true, 40.0, 70.0, 0.01, {}, false}};
  ControlContext ctx{soaks, scheduler, clock, [this] { return drives; },
                     [this] {
                       scheduler.tick(clock.wall(), [this](const std::string& t) {
                         return drive_for_target(drives, t, {{"a", "SN-A"}, {"b", "SN-B"}});
                       });
                     }};
  json ask(const std::string& line) {
    return json::parse(answer_control_line(line, [this](const control::Request& r) { return handle_control(r, ctx); }));
  }
};

TEST(ControlCommands, SecondStartOnTheSameDriveQueuesAndStopLetsItRun) {
  Fixture f;
  json first = f.ask(R"({"cmd":"start","test":"wsat","target":"sim:a","params":{"rounds":"3"}})");
  ASSERT_TRUE(first["ok"]) << first;
  EXPECT_FALSE(first["queued"]);
  json second = f.ask(R"({"cmd":"start","test":"wsat","target":"sim:SN-A"})");
  ASSERT_TRUE(second["ok"]) << second;
  EXPECT_TRUE(second["queued"]);
  EXPECT_NE(second["detail"].get<std::string>().find("SN-A"), std::string::npos);
  ASSERT_EQ(f.soaks.started.size(), 1U);
  EXPECT_EQ(f.soaks.started[0].test.text().at("rounds"), "3");

  json status = f.ask(R"({"cmd":"status"})");
  ASSERT_EQ(status["runs"].size(), 1U);
  EXPECT_EQ(status["drives"][0]["serial"], "SN-A");
  EXPECT_EQ(status["queued"].size(), 1U);

  json stop = f.ask(json{{"cmd", "stop"}, {"run", first["run"]}}.dump());
  ASSERT_TRUE(stop["ok"]) << stop;
  EXPECT_EQ(f.soaks.started.size(), 2U);  // the queued one started at once
  json history = f.ask(R"({"cmd":"history","drive":"SN-A"})");
  ASSERT_EQ(history["runs"].size(), 2U);
  EXPECT_EQ(history["runs"][1]["status"], "interrupted");
}

TEST(ControlCommands, StartWithoutATargetRunsTheNamedSoakAgainEvenAFinishedOnceSoak) {
  Fixture f;
  SoakEntry e;
  e.request = {"nightly", validate("wsat", {{"rounds", "3"}}), "sim:a"};
  f.soaks.last["nightly"] = LastRun{4, "wsat", "sim:a", RunStatus::completed, false, e.definition(), 1, 2};
  f.scheduler.configure({e}, f.clock.wall());
  f.ctx.tick();
  EXPECT_TRUE(f.soaks.started.empty());  // ran once already

  json refused = f.ask(R"({"cmd":"start","test":"nightly","target":"","params":{"rounds":"9"}})");
  EXPECT_FALSE(refused["ok"]) << refused;
  json unknown = f.ask(R"({"cmd":"start","test":"weekly","target":""})");
  EXPECT_NE(unknown["error"].get<std::string>().find("no [[soak]] named \"weekly\""), std::string::npos) << unknown;

  json again = f.ask(R"({"cmd":"start","test":"nightly","target":""})");
  ASSERT_TRUE(again["ok"]) << again;
  EXPECT_EQ(again["name"], "nightly");
  ASSERT_EQ(f.soaks.started.size(), 1U);
  EXPECT_EQ(f.soaks.started[0].test.text().at("rounds"), "3");  // as configured
  json busy = f.ask(R"({"cmd":"start","test":"nightly","target":""})");
  EXPECT_NE(busy["error"].get<std::string>().find("in progress"), std::string::npos) << busy;
}

TEST(ControlCommands, PauseAllPausesEveryRunAndShowListsRounds) {
  Fixture f;
  json run = f.ask(R"({"cmd":"start","test":"wsat","target":"sim:a"})");
  json paused = f.ask(R"({"cmd":"pause","all":true})");
  ASSERT_TRUE(paused["ok"]) << paused;
  EXPECT_EQ(f.soaks.run(run["run"]).status, RunStatus::paused);
  EXPECT_TRUE(f.ask(R"({"cmd":"pause","all":true})")["ok"]);  // already paused: it stays paused
  EXPECT_TRUE(f.ask(R"({"cmd":"resume","all":true})")["ok"]);
  f.soaks.run(run["run"]).round = 2;
  json show = f.ask(json{{"cmd", "show"}, {"run", run["run"]}}.dump());
  ASSERT_TRUE(show["ok"]) << show;
  EXPECT_EQ(show["rounds"].size(), 2U);
  EXPECT_EQ(show["run"]["round"], 2);
}

// `resume --all` beside a run that was never paused resumes the paused one
// instead of failing on the other; a named run still has to be paused.
TEST(ControlCommands, ResumeAllResumesThePausedRunsAndPassesOverRunningOnes) {
  Fixture f;
  json a = f.ask(R"({"cmd":"start","test":"wsat","target":"sim:a"})");
  json b = f.ask(R"({"cmd":"start","test":"wsat","target":"sim:b"})");
  ASSERT_FALSE(b["queued"]) << b;
  ASSERT_TRUE(f.ask(json{{"cmd", "pause"}, {"run", b["run"]}}.dump())["ok"]);
  EXPECT_FALSE(f.ask(json{{"cmd", "resume"}, {"run", a["run"]}}.dump())["ok"]);

  json resumed = f.ask(R"({"cmd":"resume","all":true})");
  ASSERT_TRUE(resumed["ok"]) << resumed;
  EXPECT_EQ(resumed["runs"], json::array({b["run"]}));
  EXPECT_EQ(f.soaks.run(a["run"]).status, RunStatus::running);
  EXPECT_EQ(f.soaks.run(b["run"]).status, RunStatus::running);

  json again = f.ask(R"({"cmd":"resume","all":true})");
  EXPECT_FALSE(again["ok"]);
  EXPECT_NE(again["error"].get<std::string>().find("no run in progress is paused"), std::string::npos) << again;
}

// Forgetting the id acts on no run: stopping is for good, so "every run"
// has to be said.
TEST(ControlCommands, StopPauseAndResumeWithoutARunOrAllActOnNothing) {
  Fixture f;
  json run = f.ask(R"({"cmd":"start","test":"wsat","target":"sim:a"})");
  for (const char* cmd : {"pause", "stop", "resume"}) {
    json reply = f.ask(json{{"cmd", cmd}}.dump());
    EXPECT_FALSE(reply["ok"]) << cmd;
    EXPECT_EQ(f.soaks.run(run["run"]).status, RunStatus::running) << cmd;
  }
  json stopped = f.ask(R"({"cmd":"stop","all":true})");
  ASSERT_TRUE(stopped["ok"]) << stopped;
  EXPECT_EQ(stopped["runs"], json::array({run["run"]}));
  EXPECT_EQ(f.soaks.run(run["run"]).status, RunStatus::interrupted);
}

TEST(ControlCommands, AnUnknownRunIdSaysWhereTheIdsAre) {
  Fixture f;
  EXPECT_NE(f.ask(R"({"cmd":"stop","run":99})")["error"].get<std::string>().find("nvmonctl status"), std::string::npos);
  EXPECT_NE(f.ask(R"({"cmd":"show","run":99})")["error"].get<std::string>().find("nvmonctl history"),
            std::string::npos);
}

TEST(ControlCommands, BadRequestsGetErrorRepliesThatSayWhy) {
  Fixture f;
  EXPECT_EQ(f.ask("{not json")["error"], "malformed request: not JSON");
  EXPECT_NE(f.ask(R"({"command":"status"})")["error"].get<std::string>().find("\"cmd\""), std::string::npos);
  EXPECT_NE(f.ask(R"({"cmd":"reboot"})")["error"].get<std::string>().find("unknown command"), std::string::npos);
  EXPECT_NE(f.ask(R"({"cmd":"stop"})")["error"].get<std::string>().find("run"), std::string::npos);
  EXPECT_NE(f.ask(R"({"cmd":"start","test":"wsat"})")["error"].get<std::string>().find("target"), std::string::npos);
  EXPECT_NE(f.ask(R"({"cmd":"start","test":"no-such-test","target":"sim:a"})")["error"].get<std::string>().find(
                "unknown test"),
            std::string::npos);
  EXPECT_FALSE(f.ask(R"({"cmd":"show","run":99})")["ok"]);
}

// nvmonctl and scripts act on the reason, never on the sentence.
TEST(ControlCommands, ErrorRepliesCarryAReasonAProgramCanActOn) {
  Fixture f;
  EXPECT_EQ(f.ask("{not json")["reason"], "decode");
  EXPECT_EQ(f.ask(R"({"cmd":"reboot"})")["reason"], "decode");
  EXPECT_EQ(f.ask(R"({"cmd":"status","protocol":9})")["reason"], "protocol_version");
  EXPECT_EQ(f.ask(R"({"cmd":"start","test":"wsat","target":"sim:a","params":{"rounds":"many"}})")["reason"], "params");
  const json unknown_run = f.ask(R"({"cmd":"stop","run":99})");
  EXPECT_FALSE(unknown_run["ok"]);
  EXPECT_EQ(unknown_run["reason"], "absent") << unknown_run.dump();
}

// Any member of the control group can send these strings; they end up in log
// lines, run.json and error messages, so a newline (a forged log line) or a
// huge value is refused before the scheduler sees the request.
TEST(ControlCommands, AStartWithUnprintableOrOversizedStringsIsRefusedBeforeItIsQueued) {
  Fixture f;
  const std::string newline_target =
      json{{"cmd", "start"}, {"test", "wsat"}, {"target", "sim:a\nsoak x: completed"}}.dump();
  const std::string long_target = json{{"cmd", "start"}, {"test", "wsat"}, {"target", std::string(5000, 'a')}}.dump();
  const std::string newline_value =
      json{{"cmd", "start"}, {"test", "wsat"}, {"target", "sim:a"}, {"params", {{"round", "1s\nforged"}}}}.dump();
  const std::string long_value =
      json{{"cmd", "start"}, {"test", "wsat"}, {"target", "sim:a"}, {"params", {{"round", std::string(2000, '1')}}}}
          .dump();
  const std::string newline_key =
      json{{"cmd", "start"}, {"test", "wsat"}, {"target", "sim:a"}, {"params", {{"a\nb", "1"}}}}.dump();
  json many = json::object();
  for (int i = 0; i < 65; ++i) many["k" + std::to_string(i)] = "1";
  const std::string too_many = json{{"cmd", "start"}, {"test", "wsat"}, {"target", "sim:a"}, {"params", many}}.dump();
  for (const auto& [line, why] : std::vector<std::pair<std::string, std::string>>{
           {newline_target, "\"target\": must be printable ASCII (no newline or control character)"},
           {long_target, "\"target\": must be 1 to 4096 characters"},
           {newline_value, "\"params\": round: must be printable ASCII (no newline or control character)"},
           {long_value, "\"params\": round: must be 1 to 1024 characters"},
           {newline_key, "\"params\": a parameter name: must be printable ASCII (no newline or control character)"},
           {too_many, "\"params\": at most 64 parameters"}}) {
    const json reply = f.ask(line);
    EXPECT_FALSE(reply["ok"]) << why;
    EXPECT_EQ(reply.value("error", ""), why);
  }
  EXPECT_TRUE(f.soaks.started.empty());
  EXPECT_TRUE(f.scheduler.list().empty());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
