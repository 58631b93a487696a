#include "drivelog/log_sources.hpp"

#include <fmt/core.h>

#include <array>

#include "collectors/nvme/ocp_log_pages.hpp"
#include "core/log.hpp"
#include "drivelog/error_log_tracker.hpp"
#include "drivelog/nvme_exports.hpp"

namespace nvmond {
namespace {

// The device's read into one member of the snapshot: its error, or nullopt.
template <typename T, typename Member>
std::optional<Error> keep(Result<T> read, Member& into) {
  if (!read) return read.error();
  into = std::move(*read);
  return std::nullopt;
}

std::optional<Error> read_smart(const LogRead& r, HealthSnapshot& snap) {
  auto smart = r.device.read_smart();
  if (!smart) return smart.error();
  snap.smart = *smart;
  snap.taken = r.clock.wall();
  return std::nullopt;
}

// Paced by SelfTestPacing; between reads the poll reports the last one.
std::optional<Error> read_self_test(const LogRead& r, HealthSnapshot& snap) {
  LogMarks& m = r.marks;
  if (auto log = r.device.read_self_test_log()) {
    m.self_test = std::move(*log);
    m.self_test_pacing.read(*m.self_test);
  } else {
    // Read again at the next poll (a drive that refused it as unsupported
    // is not asked).
    m.self_test.reset();
    m.self_test_pacing.reset();
    return log.error();
  }
  snap.self_test = m.self_test;
  return std::nullopt;
}

// A failed read waits as long as a good one: the mark is set before it.
std::optional<Error> read_event_log(const LogRead& r, HealthSnapshot& snap) {
  r.marks.event_log = event_log_read_mark(snap);
  auto log = r.device.read_persistent_event_log();
  if (!log) return log.error();
  snap.event_log = std::make_shared<const PersistentEventLog>(std::move(*log));
  return std::nullopt;
}

// A panic in the C1 log that the last poll did not show (a standing one at
// start-up counts: its telemetry may not be saved yet).
bool new_ocp_panic(LogMarks& m, const HealthSnapshot& snap) {
  if (!snap.ocp_recovery) return false;
  std::optional<std::pair<std::uint64_t, std::uint8_t>> now;
  if (snap.ocp_recovery->panicked()) now = {snap.ocp_recovery->panic_id, snap.ocp_recovery->panic_count};
  const bool fresh = now && now != m.ocp_panic;
  m.ocp_panic = now;
  return fresh;
}

// The header every poll; the whole log when telemetry_capture_due says.
std::optional<Error> read_telemetry(const LogRead& r, HealthSnapshot& snap) {
  LogMarks& m = r.marks;
  const TelemetryCapturePolicy& t = m.telemetry;
  auto header = r.device.read_telemetry_header();
  if (!header) return header.error();
  auto poll = std::make_shared<TelemetryPoll>();
  poll->header = *header;
  const bool panic = new_ocp_panic(m, snap) && (!m.panic_capture_at || snap.taken < *m.panic_capture_at ||
                                                snap.taken - *m.panic_capture_at >= t.min_interval);
  const bool due =
      m.telemetry_mark && telemetry_capture_due(*header, *m.telemetry_mark, snap.taken, t.min_interval, panic);
  if (panic && m.telemetry_mark && !due) {
    log::warn(
        "{}: OCP panic {:#x}: the drive's controller-initiated telemetry "
        "has no new data to save "
        "(data available {}, generation {})",
        r.info.path, snap.ocp_recovery->panic_id, header->data_available() ? "yes" : "no",
        header->controller_generation);
  }
  if (due && panic) m.panic_capture_at = snap.taken;
  if (due) {
    if (auto area = telemetry_capture_area(*header, t.data_area, t.max_capture_bytes)) {
      if (auto log = r.device.read_telemetry_log(*area)) {
        poll->capture = std::move(*log);
      } else {
        poll->capture_error = log.error();
      }
    } else {
      poll->capture_error =
          Error{ErrorReason::full, fmt::format("{}: controller-initiated telemetry: "
                                               "data area 1 alone is {} bytes, "
                                               "over the {}-byte cap ([telemetry] "
                                               "max_bytes_per_drive, max_bytes)",
                                               r.info.path, header->bytes_through(1), t.max_capture_bytes)};
    }
  }
  snap.telemetry = std::move(poll);
  return std::nullopt;
}

std::optional<Error> read_ocp_unsupported_requirements(const LogRead& r, HealthSnapshot& snap) {
  auto page = r.device.read_ocp_log(kOcpUnsupportedRequirementsPage);
  if (!page) return page.error();
  auto log = decode_ocp_unsupported_requirements_log(*page);
  if (!log) return Error{ErrorReason::decode, fmt::format("{}: {}", r.info.path, log.error().message)};
  auto pages = std::make_shared<OcpPageLogs>(snap.ocp_pages ? *snap.ocp_pages : OcpPageLogs{});
  pages->unsupported_requirements = std::move(*log);
  snap.ocp_pages = std::move(pages);
  return std::nullopt;
}

using Need = LogSource::Need;

// In the order a poll reads them: the C1 log before telemetry, whose
// capture a new panic makes due.
const std::array kLogSources = {
    LogSource{.name = "SMART log",
              .need = Need::required,
              .read = &read_smart,
              .add_exports = [](const HealthSnapshot& s, const LabelPrefix& id,
                                MetricSet& out) { add_smart_health(s.smart, id, out); }},
    LogSource{.name = "OCP C0 log",
              .read = [](const LogRead& r, HealthSnapshot& s) { return keep(r.device.read_ocp(), s.ocp); },
              .add_exports =
                  [](const HealthSnapshot& s, const LabelPrefix& id, MetricSet& out) {
                    if (s.ocp) add_ocp_smart(*s.ocp, id, out);
                  }},
    LogSource{.name = "OCP C3 log",
              .read = [](const LogRead& r,
                         HealthSnapshot& s) { return keep(r.device.read_ocp_latency_monitor(), s.ocp_latency); },
              .add_exports =
                  [](const HealthSnapshot& s, const LabelPrefix& id, MetricSet& out) {
                    if (s.ocp_latency) add_ocp_latency_monitor(*s.ocp_latency, id, out);
                  }},
    LogSource{.name = "OCP C1 log",
              .read = [](const LogRead& r,
                         HealthSnapshot& s) { return keep(r.device.read_ocp_error_recovery(), s.ocp_recovery); },
              .add_exports =
                  [](const HealthSnapshot& s, const LabelPrefix& id, MetricSet& out) {
                    if (s.ocp_recovery) add_ocp_recovery(*s.ocp_recovery, id, out);
                  }},
    LogSource{.name = "OCP C5 log",
              .need = Need::learned,
              .read = &read_ocp_unsupported_requirements,
              .add_exports =
                  [](const HealthSnapshot& s, const LabelPrefix& id, MetricSet& out) {
                    if (!s.ocp_pages || !s.ocp_pages->unsupported_requirements) return;
                    out.add({"nvme_ocp_unsupported_requirements", Family::gauge,
                             "Requirements of the OCP Datacenter NVMe SSD specification the drive says it does not "
                             "meet (OCP C5 Unsupported Requirement IDs)."},
                            id, static_cast<double>(s.ocp_pages->unsupported_requirements->requirement_ids.size()));
                  }},
    LogSource{.name = "temperature thresholds",
              .need = Need::best_effort,
              .read = [](const LogRead& r,
                         HealthSnapshot& s) { return keep(r.device.read_temperature_thresholds(), s.thresholds); },
              .add_exports = [](const HealthSnapshot& s, const LabelPrefix& id,
                                MetricSet& out) { add_temperature_thresholds(s.thresholds, id, out); }},
    // Its points are rendered with the drive's identity (add_drive_info).
    LogSource{.name = "host controlled thermal management",
              .need = Need::best_effort,
              .read = [](const LogRead& r,
                         HealthSnapshot& s) { return keep(r.device.read_host_thermal_management(), s.host_thermal); }},
    // Its entries are counted by the ErrorLogTracker, whose counts the
    // observer renders.
    LogSource{.name = "error information log",
              .need = Need::learned,
              .due =
                  [](LogMarks& m, const HealthSnapshot& s) {
                    return should_read_error_log(s.smart.error_log_entries, m.error_log_seen);
                  },
              .read = [](const LogRead& r, HealthSnapshot& s) { return keep(r.device.read_error_log(), s.error_log); }},
    // At start-up and when another drive identifies, then as
    // should_read_event_log says; counted by the EventLogTracker. A
    // recovery of the same drive keeps the mark: a drive that fails now
    // and then would otherwise have its whole log read again at every
    // recovery.
    LogSource{.name = "persistent event log",
              .need = Need::learned,
              .due = [](LogMarks& m, const HealthSnapshot& s) { return should_read_event_log(m.event_log, s); },
              .read = &read_event_log,
              .reset = [](LogMarks& m) { m.event_log.reset(); }},
    LogSource{.name = "device self-test",
              .need = Need::learned,
              .due = [](LogMarks& m, const HealthSnapshot&) { return m.self_test_pacing.due(); },
              .read = &read_self_test,
              .carry = [](const LogMarks& m, HealthSnapshot& s) { s.self_test = m.self_test; },
              .reset =
                  [](LogMarks& m) {
                    m.self_test.reset();
                    m.self_test_pacing.reset();
                  },
              .add_exports =
                  [](const HealthSnapshot& s, const LabelPrefix& id, MetricSet& out) {
                    if (s.self_test) add_self_test(*s.self_test, id, out);
                  }},
    // Saved by the TelemetryRecorder in the observer.
    LogSource{.name = "controller-initiated telemetry",
              .need = Need::learned,
              .due = [](LogMarks& m, const HealthSnapshot&) { return m.telemetry.capture; },
              .read = &read_telemetry,
              .reset =
                  [](LogMarks& m) {
                    m.telemetry_mark.reset();
                    m.ocp_panic.reset();
                  }},
    LogSource{.name = "PCIe link",
              .need = Need::best_effort,
              .read = [](const LogRead& r, HealthSnapshot& s) { return keep(r.device.read_pcie_link(), s.pcie); },
              .add_exports =
                  [](const HealthSnapshot& s, const LabelPrefix& id, MetricSet& out) {
                    if (s.pcie) add_pcie_link(*s.pcie, id, out);
                  }},
};

}  // namespace

std::span<const LogSource> log_sources() { return kLogSources; }

}  // namespace nvmond
