// `nvmonctl start --profile client`: the control socket's start request
// carries the PTS profile by name; the daemon validates the test under it
// before anything is queued.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "daemon/control/control_commands.hpp"
#include "daemon/control/control_server.hpp"
#include "tests/unit/schedule/fake_soak_control.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

struct Fixture {
  Fixture() { soaks.serial_of = {{"sim:a", "SN-A"}}; }
  FakeSoakControl soaks;
  SoakScheduler scheduler{soaks, nullptr};
  ManualClock clock;
  std::vector<DriveSummary> drives{{"SN-A", "Model A", "/dev/nvme0", true, 40.0, 70.0, 0.01, {}, false}};
  ControlContext ctx{soaks, scheduler, clock, [this] { return drives; },
                     [this] {
                       scheduler.tick(clock.wall(), [this](const std::string& t) {
                         return drive_for_target(drives, t, {{"a", "SN-A"}});
                       });
                     }};
  json ask(const std::string& line) {
    return json::parse(answer_control_line(line, [this](const control::Request& r) { return handle_control(r, ctx); }));
  }
};

TEST(ControlStartProfile, AClientStartRunsTheTestUnderTheClientProfile) {
  Fixture f;
  const json reply = f.ask(R"({"cmd":"start","test":"iops","target":"sim:a","profile":"client"})");
  ASSERT_TRUE(reply["ok"]) << reply;
  ASSERT_EQ(f.soaks.started.size(), 1U);
  EXPECT_EQ(f.soaks.started[0].test.profile, PtsProfile::client);
}

TEST(ControlStartProfile, WithoutAProfileAStartIsEnterprise) {
  Fixture f;
  ASSERT_TRUE(f.ask(R"({"cmd":"start","test":"cbw","target":"sim:a"})")["ok"]);
  EXPECT_EQ(f.soaks.started.at(0).test.profile, PtsProfile::enterprise);
}

TEST(ControlStartProfile, AnUnknownProfileOrATestItLacksIsRefusedBeforeItIsQueued) {
  Fixture f;
  const json unknown = f.ask(R"({"cmd":"start","test":"iops","target":"sim:a","profile":"consumer"})");
  EXPECT_FALSE(unknown["ok"]);
  EXPECT_EQ(unknown.value("error", ""), "iops on sim:a: unknown profile \"consumer\" (known: enterprise, client)");
  const json lacking = f.ask(R"({"cmd":"start","test":"cbw","target":"sim:a","profile":"client"})");
  EXPECT_FALSE(lacking["ok"]);
  EXPECT_NE(lacking.value("error", "").find("cbw is not a test of the client profile"), std::string::npos) << lacking;
  const json forged =
      f.ask(json{{"cmd", "start"}, {"test", "iops"}, {"target", "sim:a"}, {"profile", "client\nx"}}.dump());
  EXPECT_EQ(forged.value("error", ""), "\"profile\": must be printable ASCII (no newline or control character)");
  EXPECT_TRUE(f.soaks.started.empty());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
