// The log-source table the poll walks: SMART first and alone required (a
// poll without it fails), names unique (they key the failure log lines),
// the OCP C1 log before the telemetry whose capture a new panic makes due,
// and the rows' hooks doing what the worker relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "drivelog/log_sources.hpp"
#include "drivelog/nvme_exports.hpp"
#include "tests/support/fake_controller.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

const LogSource& row(std::string_view name) {
  const auto sources = log_sources();
  auto it = std::find_if(sources.begin(), sources.end(), [&](const LogSource& s) { return s.name == name; });
  EXPECT_NE(it, sources.end()) << name;
  return *it;
}

std::size_t position(std::string_view name) { return static_cast<std::size_t>(&row(name) - log_sources().data()); }

TEST(LogSources, SmartComesFirstAndIsTheOnlyRequiredRow) {
  const auto sources = log_sources();
  ASSERT_FALSE(sources.empty());
  EXPECT_EQ(sources.front().name, "SMART log");
  for (const auto& s : sources) {
    EXPECT_EQ(s.need == LogSource::Need::required, s.name == "SMART log") << s.name;
  }
}

TEST(LogSources, EveryRowHasAUniqueNameAndAReader) {
  std::set<std::string_view> names;
  for (const auto& s : log_sources()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_NE(s.read, nullptr) << s.name;
  }
}

TEST(LogSources, TheErrorRecoveryLogIsReadBeforeTelemetry) {
  EXPECT_LT(position("OCP C1 log"), position("controller-initiated telemetry"));
}

TEST(LogSources, ARowReadsFromTheDeviceIntoTheSnapshot) {
  auto script = std::make_shared<test::ControllerScript>();
  script->identity.serial = "SN-ROWS";
  script->smart.percentage_used = 7;
  script->error_log = {ErrorLogEntry{.error_count = 3}};
  test::FakeController device(script);
  const DriveInfo info = drive_info(script->identity, "fake:nvme7", "fake");
  ManualClock clock;
  LogMarks marks(10s, TelemetryCapturePolicy{});
  HealthSnapshot snap;
  const LogRead read{device, info, clock, marks};
  EXPECT_FALSE(row("SMART log").read(read, snap));
  EXPECT_EQ(snap.smart.percentage_used, 7);
  EXPECT_EQ(snap.taken, clock.wall());
  EXPECT_FALSE(row("error information log").read(read, snap));
  ASSERT_TRUE(snap.error_log);
  EXPECT_EQ(snap.error_log->size(), 1u);
  script->error_log_supported = false;
  auto refused = row("error information log").read(read, snap);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->reason, ErrorReason::unsupported);
}

TEST(LogSources, TheSelfTestRowCarriesItsLastReadAndForgetsItForAnotherDrive) {
  const LogSource& self_test = row("device self-test");
  ASSERT_NE(self_test.carry, nullptr);
  ASSERT_NE(self_test.reset, nullptr);
  LogMarks marks(10s, TelemetryCapturePolicy{});
  marks.self_test = SelfTestLog{.current_operation = 1, .completion_pct = 40, .results = {}};
  HealthSnapshot snap;
  self_test.carry(marks, snap);
  EXPECT_EQ(snap.self_test, marks.self_test);
  self_test.reset(marks);
  EXPECT_FALSE(marks.self_test);
  EXPECT_TRUE(marks.self_test_pacing.due());
}

TEST(LogSources, AddHealthRendersTheRowsFamilies) {
  HealthSnapshot snap;
  snap.self_test = SelfTestLog{};
  MetricSet set;
  add_health(snap, LabelPrefix::of({{"serial", "SN"}}), set);
  RenderedFamilies text;
  set.render_to(text);
  EXPECT_NE(text.text().find("nvme_self_test_in_progress{serial=\"SN\"} 0"), std::string::npos) << text.text();
  EXPECT_NE(text.text().find("nvme_percentage_used_ratio{serial=\"SN\"} 0"), std::string::npos);
  EXPECT_EQ(text.text().find("nvme_pcie_link_degraded"), std::string::npos);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
