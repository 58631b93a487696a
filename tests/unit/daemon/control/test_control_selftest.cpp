// nvmonctl selftest through the control commands: which drives may start a
// test, what reaches the device, and what status shows.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "daemon/control/control_commands.hpp"
#include "daemon/control/control_server.hpp"
#include "tests/unit/schedule/fake_soak_control.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

struct Sent {
  std::string path;
  std::optional<SelfTestKind> kind;
};

DriveSummary a_drive(std::string serial, std::string path) {
  DriveSummary d;
  d.serial = std::move(serial);
  d.model = "Model";
  d.path = std::move(path);
  d.up = true;
  d.composite_c = 40.0;
  d.warning_c = 70.0;
  d.self_test_supported = true;
  d.self_test = SelfTestLog{};
  return d;
}

struct Fixture {
  FakeSoakControl soaks;
  SoakScheduler scheduler{soaks, nullptr};
  ManualClock clock;
  std::vector<DriveSummary> drives{a_drive("SN-A", "/dev/nvme0"), a_drive("SN-B", "/dev/nvme1")};
  std::map<std::string, std::string> users;  // serial -> what uses it
  std::vector<Sent> sent;
  std::optional<Error> device_answer;
  ControlContext ctx{soaks,
                     scheduler,
                     clock,
                     [this] { return drives; },
                     [] {},
                     [this](const std::string& serial) -> std::optional<std::string> {
                       auto it = users.find(serial);
                       if (it == users.end()) return std::nullopt;
                       return it->second;
                     },
                     [this](const std::string& path, std::optional<SelfTestKind> kind,
                            const std::function<void(std::optional<Error>)>& done) {
                       sent.push_back({path, kind});
                       done(device_answer);
                     }};
  json ask(const json& request) {
    return json::parse(
        answer_control_line(request.dump(), [this](const control::Request& r) { return handle_control(r, ctx); }));
  }
  json selftest(const char* action, const char* drive, bool extended = false) {
    json r{{"cmd", "selftest"}, {"action", action}, {"drive", drive}};
    if (extended) r["extended"] = true;
    return ask(r);
  }
};

std::string error_of(const json& reply) { return reply.value("error", std::string{}); }

TEST(ControlSelfTest, StartSendsTheKindToTheDrivesController) {
  Fixture f;
  json r = f.selftest("start", "SN-B", true);
  ASSERT_TRUE(r["ok"]) << r;
  EXPECT_EQ(r["done"], "extended test started");
  ASSERT_EQ(f.sent.size(), 1u);
  EXPECT_EQ(f.sent[0].path, "/dev/nvme1");
  EXPECT_EQ(f.sent[0].kind, SelfTestKind::extended_test);
  EXPECT_TRUE(f.selftest("start", "SN-A")["ok"]);
  EXPECT_EQ(f.sent[1].kind, SelfTestKind::short_test);
}

TEST(ControlSelfTest, AbortSendsAnAbort) {
  Fixture f;
  json r = f.selftest("abort", "SN-A");
  ASSERT_TRUE(r["ok"]) << r;
  ASSERT_EQ(f.sent.size(), 1u);
  EXPECT_EQ(f.sent[0].kind, std::nullopt);
}

TEST(ControlSelfTest, StartIsRefusedOnADriveAJobOrSoakUses) {
  Fixture f;
  f.users["SN-A"] = "job fio-1";
  json r = f.selftest("start", "SN-A");
  EXPECT_FALSE(r["ok"]);
  EXPECT_NE(error_of(r).find("in use by job fio-1"), std::string::npos) << r;
  EXPECT_TRUE(f.sent.empty());
  EXPECT_TRUE(f.selftest("abort", "SN-A")["ok"]) << "an abort is never refused for a user";
}

TEST(ControlSelfTest, StartIsRefusedOnAHotDrive) {
  Fixture f;
  f.drives[0].composite_c = 70.0;  // at WCTEMP
  json r = f.selftest("start", "SN-A");
  EXPECT_FALSE(r["ok"]);
  EXPECT_NE(error_of(r).find("hot: 70 °C"), std::string::npos) << r;
  EXPECT_NE(error_of(r).find("WCTEMP"), std::string::npos) << r;
  EXPECT_TRUE(f.sent.empty());
  f.drives[0].composite_c = 69.0;
  EXPECT_TRUE(f.selftest("start", "SN-A")["ok"]);
}

TEST(ControlSelfTest, ADriveWithoutSelfTestSupportOrAnUnknownSerialIsRefused) {
  Fixture f;
  f.drives[1].self_test_supported = false;
  f.drives[1].self_test.reset();
  for (const char* action : {"start", "abort", "status"}) {
    json r = f.selftest(action, "SN-B");
    EXPECT_FALSE(r["ok"]);
    EXPECT_NE(error_of(r).find("does not support Device Self-test"), std::string::npos) << r;
    EXPECT_EQ(r["reason"], "unsupported") << r;
  }
  json unknown = f.selftest("status", "SN-X");
  EXPECT_FALSE(unknown["ok"]);
  EXPECT_NE(error_of(unknown).find("no drive with serial SN-X"), std::string::npos) << unknown;
  EXPECT_EQ(unknown["reason"], "absent") << unknown;
  EXPECT_TRUE(f.sent.empty());
}

TEST(ControlSelfTest, TheDrivesRefusalIsTheReply) {
  Fixture f;
  f.device_answer =
      Error{ErrorReason::busy,
            "/dev/nvme0: device self-test (14h), short (STC 1h): NVMe status 0x11d (Device Self-test In Progress)"};
  json r = f.selftest("start", "SN-A");
  EXPECT_FALSE(r["ok"]);
  EXPECT_EQ(error_of(r), f.device_answer->message);
}

TEST(ControlSelfTest, StatusShowsTheRunningTestAndTheNewestResults) {
  Fixture f;
  SelfTestResult failed;
  failed.status = 0x27;
  failed.segment = 5;
  failed.power_on_hours = 1201;
  SelfTestResult passed;
  passed.status = 0x10;
  passed.segment = 3;  // not a failed result: its segment means nothing
  passed.power_on_hours = 1100;
  f.drives[0].self_test = SelfTestLog{.current_operation = 1, .completion_pct = 40, .results = {failed, passed}};
  json r = f.selftest("status", "SN-A");
  ASSERT_TRUE(r["ok"]) << r;
  EXPECT_TRUE(r["log_read"]);
  EXPECT_EQ(r["running"], "short");
  EXPECT_EQ(r["completion_pct"], 40);
  ASSERT_EQ(r["results"].size(), 2u);
  EXPECT_EQ(r["results"][0],
            json::parse(R"({"kind":"extended","result":"failed_segments","segment":5,"power_on_hours":1201})"));
  EXPECT_TRUE(r["results"][1]["segment"].is_null());
  EXPECT_TRUE(f.sent.empty());

  f.drives[0].self_test.reset();
  json unread = f.selftest("status", "SN-A");
  EXPECT_FALSE(unread["log_read"]);
  EXPECT_TRUE(unread["running"].is_null());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
