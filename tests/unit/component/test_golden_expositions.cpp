// Metric names, labels and values are the product's API: each fixture below
// is rendered through prometheus-cpp's text serializer and compared with a
// checked-in exposition in tests/fixtures/golden, so that a renamed metric or
// label shows up as a diff in review. Each golden file must also pass
// `promtool check metrics`.
//
// After an intended change, regenerate and review the diff:
//   NVMOND_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "analytics/drive_analytics.hpp"
#include "analytics/metrics.hpp"
#include "collectors/nvme/decode.hpp"
#include "sim/drive_model.hpp"
#include "drivelog/nvme_exports.hpp"
#include "store/sqlite_store.hpp"
#include "tests/support/golden_file.hpp"
#include "tests/support/running_workload.hpp"
#include "tests/support/temp_dir.hpp"
#include "workloads/workload_metrics.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

std::vector<std::uint8_t> page(const std::string& name) {
  std::ifstream f(test::fixture_path("nvme/" + name), std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

void expect_golden(const std::string& name, const std::vector<prometheus::MetricFamily>& families) {
  test::expect_golden_text(name, prometheus::TextSerializer().Serialize(families));
}

DriveInfo fixture_drive() {
  auto controller = decode_identify_controller(page("identify_ctrl.bin"));
  EXPECT_TRUE(controller) << controller.error().message;
  DriveInfo info;
  info.path = "/dev/nvme0";
  info.backend = "nvme";
  info.controller = *controller;
  info.serial = controller->serial;
  info.model = controller->model;
  info.firmware = controller->firmware;
  info.capacity_bytes = 3'840'755'982'336;
  return info;
}

std::vector<prometheus::MetricFamily> health_families(const DriveInfo& info, const HealthSnapshot& snap) {
  MetricSet set;
  const auto id = LabelPrefix::of({{"serial", info.serial}});
  add_drive_info(info, id, set, snap.host_thermal);
  add_up(id, true, set);
  add_health(snap, id, set);
  return set.take();
}

TEST(GoldenExposition, SmartPage) {
  HealthSnapshot snap;
  auto smart = decode_smart_log(page("smart_full.bin"));
  ASSERT_TRUE(smart) << smart.error().message;
  snap.smart = *smart;
  // The fixture's Identify says HCTMA 1: TMT1 70 °C, TMT2 75 °C.
  snap.host_thermal = decode_host_thermal_management(0x0157015Cu);
  expect_golden("health_smart.prom", health_families(fixture_drive(), snap));
}

TEST(GoldenExposition, SmartAndOcpC0Pages) {
  HealthSnapshot snap;
  auto smart = decode_smart_log(page("smart_fresh.bin"));
  auto ocp = decode_ocp_smart_log(page("ocp_smart.bin"));
  ASSERT_TRUE(smart) << smart.error().message;
  ASSERT_TRUE(ocp) << ocp.error().message;
  snap.smart = *smart;
  snap.ocp = *ocp;
  expect_golden("health_ocp.prom", health_families(fixture_drive(), snap));
}

// A consumer sim drive written flat out for ten minutes, then idle for five,
// polled every 10 s into the analytics (thermal events, wear), with a
// workload still running on it.
TEST(GoldenExposition, SimulatedDriveWithThermalEventsAndARunningWorkload) {
  test::TempDir dir("nvmond-golden");
  auto opened = SqliteStore::open(dir.path());
  ASSERT_TRUE(opened) << opened.error().message;
  ManualClock clock(from_unix_ns(1'780'000'000'000'000'000));  // 2026-05-28
  SimDriveSpec spec = sim_profile("consumer");
  spec.name = "golden";
  spec.serial = "SN-GOLDEN";
  DriveModel model(spec, clock.wall());
  DriveAnalytics analytics(**opened);
  AnalyticsConfig config;
  const DriveInfo info = model.identity();
  auto poll = [&] {
    model.advance_to(clock.wall());
    HealthSnapshot snap;
    snap.taken = clock.wall();
    snap.smart = model.smart();
    snap.ocp = model.ocp();
    snap.thresholds = model.thresholds();
    auto view = analytics.update(info, snap, config);
    EXPECT_TRUE(view) << view.error().message;
    return snap;
  };
  HealthSnapshot last = poll();
  const WallTime start = clock.wall();
  WallTime next_poll = start + 10s;
  while (clock.wall() - start < 15min) {
    model.advance_to(clock.wall());
    if (clock.wall() - start < 10min) {
      clock.advance(model.io(IoOp::write, 1 << 20, true));
    } else {
      clock.advance(std::max<Duration>(next_poll - clock.wall(), 1ns));
    }
    if (clock.wall() >= next_poll) {
      last = poll();
      next_poll += 10s;
    }
  }
  ASSERT_GT(analytics.view().thermal.events, 0u) << "the fixture no longer makes a thermal event";

  const RunSnapshot run = test::running_workload("golden-soak");

  auto families = health_families(info, last);
  for (auto& f : analytics_metric_families(std::span(&analytics.view(), 1))) families.push_back(std::move(f));
  for (auto& f : render_workload_metrics(std::span(&run, 1))) families.push_back(std::move(f));
  expect_golden("sim_thermal_workload.prom", families);
}

// promtool's lint of every golden file (these and the daemon's scrape):
// names, units, help and types as Prometheus wants them.
TEST(GoldenExposition, EveryGoldenFilePassesPromtoolCheckMetrics) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool is not installed (scripts/setup installs it)";
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(test::golden_path(""))) {
    if (entry.path().extension() == ".prom") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 4u) << "golden files went missing from " << test::golden_path("");
  for (const auto& path : files) {
    int status = 0;
    const std::string out = test::command_output("promtool check metrics < '" + path + "'", &status);
    EXPECT_EQ(status, 0) << path << ":\n" << out;
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
