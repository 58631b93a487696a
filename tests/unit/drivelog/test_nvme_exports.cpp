// The exporter's side of the field table: a decoded fixture page becomes
// series in base units, exposition text as a scrape shows it.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "collectors/nvme/decode.hpp"
#include "collectors/nvme/ocp_log_pages.hpp"
#include "drivelog/nvme_exports.hpp"
#include "tests/support/samples.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

std::vector<std::uint8_t> fixture(const std::string& name) {
  std::ifstream f(test::fixture_path("nvme/" + name), std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

std::vector<prometheus::MetricFamily> families(const HealthSnapshot& snap) {
  DriveInfo info;
  info.serial = "SN-TEST-0001";
  MetricSet set;
  add_health(snap, LabelPrefix::of({{"serial", info.serial}}), set);
  return set.take();
}

class NvmeExportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto smart = decode_smart_log(fixture("smart_full.bin"));
    ASSERT_TRUE(smart) << smart.error().message;
    snap_.smart = *smart;
  }
  // The exposition a scrape shows of snap_.
  void render() {
    fams_ = families(snap_);
    text_ = prometheus::TextSerializer().Serialize(fams_);
  }
  bool has(const std::string& line) const { return text_.find("\n" + line + "\n") != std::string::npos; }
  // The value of the fixture drive's series `name`, NaN if absent.
  double value(const std::string& name) const { return test::sample(fams_, name, {{"serial", "SN-TEST-0001"}}); }
  HealthSnapshot snap_;
  std::vector<prometheus::MetricFamily> fams_;
  std::string text_;
};

TEST_F(NvmeExportsTest, ConvertsEveryFieldToBaseUnits) {
  render();
  const std::string id = "{serial=\"SN-TEST-0001\"";
  // 345 K composite, sensors 1, 2, 5 present; absent sensors are not exported.
  EXPECT_TRUE(has("nvme_temperature_celsius" + id + ",sensor=\"composite\"} 72")) << text_;
  EXPECT_TRUE(has("nvme_temperature_celsius" + id + ",sensor=\"5\"} 79"));
  EXPECT_EQ(text_.find("sensor=\"3\""), std::string::npos);
  // Critical warning 0x0A: temperature and read-only.
  EXPECT_TRUE(has("nvme_critical_warning" + id + ",bit=\"temperature\"} 1"));
  EXPECT_TRUE(has("nvme_critical_warning" + id + ",bit=\"read_only\"} 1"));
  EXPECT_TRUE(has("nvme_critical_warning" + id + ",bit=\"spare\"} 0"));
  EXPECT_TRUE(has("nvme_percentage_used_ratio" + id + "} 1.23"));
  EXPECT_TRUE(has("nvme_available_spare_ratio" + id + "} 0.87"));
  // Minutes and hours become seconds.
  EXPECT_TRUE(has("nvme_controller_busy_seconds_total" + id + "} 259260"));
  EXPECT_TRUE(has("nvme_power_on_seconds_total" + id + "} 94608000"));
  EXPECT_TRUE(has("nvme_warning_temperature_seconds_total" + id + "} 74040"));
  EXPECT_TRUE(has("nvme_thermal_management_seconds_total" + id + ",level=\"2\"} 90"));
  EXPECT_TRUE(has("nvme_thermal_management_transitions_total" + id + ",level=\"1\"} 11"));
  // Data units (2^64 + 12345) x 512000 bytes, as float64.
  double written = (18446744073709551616.0 + 12345) * 512000;
  EXPECT_DOUBLE_EQ(value("nvme_data_written_bytes_total"), written);
  EXPECT_NE(text_.find("# TYPE nvme_data_written_bytes_total counter"), std::string::npos);
  EXPECT_EQ(text_.find("nvme_ocp_"), std::string::npos) << "no OCP series without the C0 log";
}

TEST_F(NvmeExportsTest, OcpLogAddsItsSeries) {
  auto ocp = decode_ocp_smart_log(fixture("ocp_smart.bin"));
  ASSERT_TRUE(ocp) << ocp.error().message;
  snap_.ocp = *ocp;
  render();
  const std::string id = "{serial=\"SN-TEST-0001\"}";
  EXPECT_TRUE(has("nvme_ocp_thermal_throttling_events_total" + id + " 13")) << text_;
  EXPECT_TRUE(has("nvme_ocp_thermal_throttling_status" + id + " 2"));
  EXPECT_TRUE(has("nvme_ocp_capacitor_health_ratio" + id + " 0.17"));
  EXPECT_DOUBLE_EQ(value("nvme_ocp_endurance_estimate_bytes"), 7e15);
  EXPECT_DOUBLE_EQ(value("nvme_ocp_physical_media_written_bytes_total"), 18446744073709551616.0 + 1000);
}

// A version 3 page has no version 5 fields: their series would read 0 as
// if the drive had said so.
TEST_F(NvmeExportsTest, OcpFieldsOfLaterVersionsOnlyWhenThePageHasThem) {
  auto v3 = decode_ocp_smart_log(fixture("ocp_smart.bin"));
  ASSERT_TRUE(v3) << v3.error().message;
  snap_.ocp = *v3;
  render();
  const std::string id = "{serial=\"SN-TEST-0001\"}";
  EXPECT_TRUE(has("nvme_ocp_smart_log_version" + id + " 3")) << text_;
  EXPECT_TRUE(has("nvme_ocp_pcie_link_retrainings_total" + id + " 0"));
  EXPECT_EQ(text_.find("nvme_ocp_media_dies_offline"), std::string::npos);
  EXPECT_EQ(text_.find("nvme_ocp_command_timeouts_total"), std::string::npos);

  auto v6 = decode_ocp_smart_log(fixture("ocp_smart_v6.bin"));
  ASSERT_TRUE(v6) << v6.error().message;
  snap_.ocp = *v6;
  render();
  EXPECT_TRUE(has("nvme_ocp_smart_log_version" + id + " 6")) << text_;
  EXPECT_TRUE(has("nvme_ocp_pcie_link_retrainings_total" + id + " 22"));
  EXPECT_TRUE(has("nvme_ocp_power_state_changes_total" + id + " 23"));
  EXPECT_TRUE(has("nvme_ocp_media_dies" + id + " 256"));
  EXPECT_TRUE(has("nvme_ocp_media_die_failure_tolerance" + id + " 4"));
  EXPECT_TRUE(has("nvme_ocp_media_dies_offline" + id + " 3"));
  EXPECT_TRUE(has("nvme_ocp_max_temperature_recorded_celsius" + id + " 81"));
  EXPECT_TRUE(has("nvme_ocp_nand_average_erases" + id + " 1234"));
  EXPECT_TRUE(has("nvme_ocp_command_timeouts_total" + id + " 24"));
  EXPECT_TRUE(has("nvme_ocp_system_area_program_failures_total" + id + " 25"));
  EXPECT_TRUE(has("nvme_ocp_system_area_uncorrectable_reads_total" + id + " 26"));
  EXPECT_TRUE(has("nvme_ocp_system_area_erase_failures_total" + id + " 27"));
}

TEST_F(NvmeExportsTest, LatencyMonitorStaticBucketsBecomeCounters) {
  auto page = fixture("ocp_latency_monitor.bin");
  auto log = decode_ocp_latency_monitor_log(page);
  ASSERT_TRUE(log) << log.error().message;
  snap_.ocp_latency = *log;
  render();
  const std::string id = "{serial=\"SN-TEST-0001\"";
  EXPECT_TRUE(has("nvme_ocp_latency_monitor_enabled" + id + "} 1")) << text_;
  EXPECT_TRUE(has("nvme_ocp_latency_monitor_threshold_seconds" + id + ",bucket=\"0\"} 0.03"));
  EXPECT_TRUE(has("nvme_ocp_latency_monitor_threshold_seconds" + id + ",bucket=\"3\"} 0.235"));
  // Static counters (2000 + 100 x bucket + 10 x slot), not the active window's.
  EXPECT_TRUE(has("nvme_ocp_latency_monitor_commands_total" + id + ",op=\"read\",bucket=\"0\"} 2030"));
  EXPECT_TRUE(has("nvme_ocp_latency_monitor_commands_total" + id + ",op=\"write\",bucket=\"2\"} 2220"));
  EXPECT_TRUE(has("nvme_ocp_latency_monitor_commands_total" + id + ",op=\"deallocate\",bucket=\"3\"} 2310"));
  EXPECT_NE(text_.find("# TYPE nvme_ocp_latency_monitor_commands_total counter"), std::string::npos);
}

TEST_F(NvmeExportsTest, ErrorRecoveryPanicNamesItsActionsOnlyDuringAPanic) {
  OcpErrorRecoveryLog calm;
  calm.panic_count = 2;
  snap_.ocp_recovery = calm;
  render();
  const std::string id = "{serial=\"SN-TEST-0001\"";
  EXPECT_TRUE(has("nvme_ocp_panics_total" + id + "} 2")) << text_;
  EXPECT_TRUE(has("nvme_ocp_panic" + id + "} 0"));
  EXPECT_EQ(text_.find("nvme_ocp_panic_info"), std::string::npos);

  auto log = decode_ocp_error_recovery_log(fixture("ocp_error_recovery.bin"));
  ASSERT_TRUE(log) << log.error().message;
  snap_.ocp_recovery = *log;
  render();
  EXPECT_TRUE(has("nvme_ocp_panic" + id + "} 1")) << text_;
  EXPECT_TRUE(has("nvme_ocp_panic_info" + id +
                  ",panic_id=\"0x123456789abcdef\",reset_action=\"controller_reset+perst\","
                  "recovery_action=\"device_replacement\"} 1"));
}

TEST_F(NvmeExportsTest, PcieLinkSeriesOnlyForWhatTheKernelSaid) {
  render();
  EXPECT_EQ(text_.find("nvme_pcie_"), std::string::npos) << "no link series without a link";
  PcieLink link;
  link.current_speed_gts = 8.0;
  link.max_speed_gts = 16.0;
  link.current_width = 4;
  link.max_width = 4;
  link.aer_correctable = 3;  // no nonfatal / fatal files: no series for them
  snap_.pcie = link;
  render();
  const std::string id = "{serial=\"SN-TEST-0001\"";
  EXPECT_TRUE(has("nvme_pcie_link_speed_transfers_per_second" + id + ",link=\"current\"} 8000000000")) << text_;
  EXPECT_TRUE(has("nvme_pcie_link_speed_transfers_per_second" + id + ",link=\"max\"} 16000000000"));
  EXPECT_TRUE(has("nvme_pcie_link_width_lanes" + id + ",link=\"current\"} 4"));
  EXPECT_TRUE(has("nvme_pcie_link_degraded" + id + "} 1"));
  EXPECT_TRUE(has("nvme_pcie_aer_errors_total" + id + ",severity=\"correctable\"} 3"));
  EXPECT_EQ(text_.find("severity=\"fatal\""), std::string::npos);
}

TEST_F(NvmeExportsTest, SelfTestSeriesOnlyForADriveThatSupportsThem) {
  render();
  EXPECT_EQ(text_.find("nvme_self_test_"), std::string::npos) << "no self-test series without the log";
  const std::string id = "{serial=\"SN-TEST-0001\"";
  snap_.self_test = SelfTestLog{};  // supported, never tested
  render();
  EXPECT_TRUE(has("nvme_self_test_in_progress" + id + "} 0")) << text_;
  EXPECT_TRUE(has("nvme_self_test_progress_ratio" + id + "} 0"));
  EXPECT_EQ(text_.find("nvme_self_test_last_"), std::string::npos);

  SelfTestResult failed;
  failed.status = 0x27;  // extended, failed segments
  failed.segment = 5;
  failed.power_on_hours = 10;
  SelfTestResult passed;
  passed.status = 0x10;
  snap_.self_test = SelfTestLog{.current_operation = 1, .completion_pct = 40, .results = {failed, passed}};
  render();
  EXPECT_TRUE(has("nvme_self_test_in_progress" + id + "} 1")) << text_;
  EXPECT_TRUE(has("nvme_self_test_progress_ratio" + id + "} 0.4"));
  EXPECT_TRUE(has("nvme_self_test_last_result" + id + ",kind=\"extended\",result=\"failed_segments\"} 1"));
  EXPECT_TRUE(has("nvme_self_test_last_power_on_seconds" + id + "} 36000"));
  EXPECT_TRUE(has("nvme_self_test_failed_segment" + id + "} 5"));
  EXPECT_EQ(text_.find("result=\"passed\""), std::string::npos) << "only the newest result";

  snap_.self_test->results = {passed};
  render();
  EXPECT_TRUE(has("nvme_self_test_last_result" + id + ",kind=\"short\",result=\"passed\"} 1"));
  EXPECT_EQ(text_.find("nvme_self_test_failed_segment"), std::string::npos);
}

TEST(ErrorLogClasses, EveryClassHasASeriesFromTheStart) {
  ErrorClassCounts counts{};
  counts[static_cast<std::size_t>(ErrorStatusClass::media)] = 2;
  MetricSet set;
  add_error_log_classes(counts, LabelPrefix::of({{"serial", "S"}}), set);
  const auto fams = set.take();
  ASSERT_EQ(fams.size(), 1u);
  EXPECT_EQ(fams[0].metric.size(), kErrorStatusClassCount);
  EXPECT_EQ(test::sample(fams, "nvme_error_log_read_entries_total", {{"serial", "S"}, {"status_class", "media"}}), 2);
  EXPECT_EQ(
      test::sample(fams, "nvme_error_log_read_entries_total", {{"serial", "S"}, {"status_class", "generic_host"}}), 0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
