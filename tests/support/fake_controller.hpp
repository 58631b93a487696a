#pragma once
// The NVMe controller behind a PTS target, faked: it answers identify and
// SMART with what the test sets and records the formats it is sent, so a
// target in a temp file reads and purges as an NVMe namespace would.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/device.hpp"

namespace nvmond::test {

struct ControllerScript {
  ControllerIdentity identity;
  SmartLog smart;
  std::optional<Error> format_error;             // what a format answers; nullopt: done
  std::vector<std::uint32_t> formatted;          // the namespaces sent a format, in order
  std::optional<bool> write_cache_enabled;       // Get Features 06h; nullopt: refused
  std::vector<bool> write_cache_sets;            // Set Features 06h sent, in order
  std::optional<Error> write_cache_set_error;    // what a Set Features 06h answers; nullopt: done
  std::vector<ErrorLogEntry> error_log;          // newest first, as a drive keeps it
  int error_log_reads = 0;                       // Get Log Page 01h commands answered
  std::optional<SelfTestLog> self_test;          // Get Log Page 06h; nullopt: unsupported
  int self_test_reads = 0;                       // Get Log Page 06h commands asked for
  std::optional<PersistentEventLog> event_log;   // Get Log Page 0Dh; nullopt: unsupported
  int event_log_reads = 0;                       // Get Log Page 0Dh reads asked for
  std::optional<Error> smart_error;              // what Get Log Page 02h answers; nullopt: `smart`
  bool error_log_supported = true;               // false: Get Log Page 01h is refused as unsupported
  std::vector<SelfTestKind> self_tests_started;  // Device Self-test commands, in order
  int self_test_aborts = 0;
  std::optional<Error> self_test_error;  // what a Device Self-test answers; nullopt: done
  // Get Log Page 08h: the whole log through data area 3, as the drive
  // holds it; nullopt: unsupported (LPA bit 3 clear).
  std::optional<TelemetryLog> telemetry;
  int telemetry_header_reads = 0;
  std::vector<unsigned> telemetry_log_reads;        // the data area of each whole-log read
  std::optional<Error> telemetry_log_error;         // what a whole-log read answers; nullopt: `telemetry`
  std::optional<OcpErrorRecoveryLog> ocp_recovery;  // the OCP C1 log; nullopt: not an OCP drive
  // OCP log pages read raw (read_ocp_log), by identifier; one not here is
  // refused as unsupported.
  std::map<std::uint8_t, std::vector<std::uint8_t>> ocp_pages;
  std::map<std::uint8_t, int> ocp_page_reads;  // read_ocp_log calls, by identifier
};

class FakeController final : public Device {
 public:
  explicit FakeController(std::shared_ptr<ControllerScript> script) : script_(std::move(script)) {}
  Result<DriveInfo> identify() override { return drive_info(script_->identity, "fake:nvme7", "fake"); }
  Result<SmartLog> read_smart() override {
    if (script_->smart_error) return *script_->smart_error;
    return script_->smart;
  }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<std::optional<OcpErrorRecoveryLog>> read_ocp_error_recovery() override { return script_->ocp_recovery; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  Result<std::vector<std::uint8_t>> read_ocp_log(const OcpLogPage& page) override {
    ++script_->ocp_page_reads[page.id];
    const auto it = script_->ocp_pages.find(page.id);
    if (it == script_->ocp_pages.end()) {
      return Error{ErrorReason::unsupported, "fake:nvme7: get-log " + std::string(page.name) + ": Invalid Log Page"};
    }
    return it->second;
  }
  std::optional<Error> format_user_data_erase(std::uint32_t nsid) override {
    script_->formatted.push_back(nsid);
    return script_->format_error;
  }
  Result<std::vector<ErrorLogEntry>> read_error_log() override {
    ++script_->error_log_reads;
    if (!script_->error_log_supported)
      return Error{ErrorReason::unsupported, "fake:nvme7: get-log error information (01h): Invalid Log Page"};
    return script_->error_log;
  }
  Result<SelfTestLog> read_self_test_log() override {
    ++script_->self_test_reads;
    if (!script_->self_test)
      return Error{ErrorReason::unsupported, "fake:nvme7: get-log device self-test (06h): OACS bit 4 clear"};
    return *script_->self_test;
  }
  Result<PersistentEventLog> read_persistent_event_log() override {
    ++script_->event_log_reads;
    if (!script_->event_log)
      return Error{ErrorReason::unsupported, "fake:nvme7: get-log persistent event (0Dh): LPA bit 4 clear"};
    return *script_->event_log;
  }
  Result<TelemetryHeader> read_telemetry_header() override {
    ++script_->telemetry_header_reads;
    if (!script_->telemetry)
      return Error{ErrorReason::unsupported, "fake:nvme7: get-log telemetry (08h): LPA bit 3 clear"};
    return script_->telemetry->header;
  }
  Result<TelemetryLog> read_telemetry_log(unsigned data_area) override {
    script_->telemetry_log_reads.push_back(data_area);
    if (!script_->telemetry)
      return Error{ErrorReason::unsupported, "fake:nvme7: get-log telemetry (08h): LPA bit 3 clear"};
    if (script_->telemetry_log_error) return *script_->telemetry_log_error;
    TelemetryLog log = *script_->telemetry;
    log.data_area = data_area;
    log.bytes.resize(std::min<std::size_t>(log.bytes.size(), log.header.bytes_through(data_area)));
    return log;
  }
  std::optional<Error> start_self_test(SelfTestKind kind) override {
    script_->self_tests_started.push_back(kind);
    return script_->self_test_error;
  }
  std::optional<Error> abort_self_test() override {
    ++script_->self_test_aborts;
    return script_->self_test_error;
  }
  Result<bool> read_volatile_write_cache() override {
    if (!script_->write_cache_enabled)
      return Error{ErrorReason::nvme_status, "fake:nvme7: get features (06h): Invalid Field"};
    return *script_->write_cache_enabled;
  }
  std::optional<Error> set_volatile_write_cache(bool enabled) override {
    script_->write_cache_sets.push_back(enabled);
    if (script_->write_cache_set_error) return script_->write_cache_set_error;
    script_->write_cache_enabled = enabled;
    return std::nullopt;
  }

 private:
  std::shared_ptr<ControllerScript> script_;
};

// Every target is namespace `nsid` of a FakeController playing `script`.
inline NamespaceOpener fake_namespace(std::shared_ptr<ControllerScript> script, std::optional<std::uint32_t> nsid = 3) {
  return [script, nsid](const std::string&) {
    return std::optional<NvmeNamespace>{NvmeNamespace{std::make_unique<FakeController>(script), nsid}};
  };
}

}  // namespace nvmond::test
