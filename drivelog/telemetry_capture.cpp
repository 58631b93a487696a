#include "drivelog/telemetry_capture.hpp"

#include <fmt/core.h>

namespace nvmond {

bool telemetry_capture_due(const TelemetryHeader& header, const TelemetryMark& mark, WallTime now,
                           Duration min_interval, bool after_panic) {
  if (!header.data_available()) return false;
  if (mark.saved_generation && *mark.saved_generation == header.controller_generation) return false;
  if (after_panic || !mark.last_attempt || now < *mark.last_attempt) return true;
  return now - *mark.last_attempt >= min_interval;
}

std::optional<unsigned> telemetry_capture_area(const TelemetryHeader& header, unsigned wanted,
                                               std::uint64_t max_bytes) {
  for (unsigned area = std::min(wanted, kTelemetryMaxDataArea); area >= 1; --area) {
    if (header.bytes_through(area) <= max_bytes) return area;
  }
  return std::nullopt;
}

TelemetryRecorder::Update TelemetryRecorder::update(const DriveInfo& info, const HealthSnapshot& snap) {
  Update out;
  if (info.serial != serial_) {
    // Another drive at this path: its own archive and counts.
    serial_ = info.serial;
    mark_.reset();
    failing_ = {};
    saved_ = failed_ = 0;
  }
  if (!snap.telemetry) return out;
  if (!mark_) {
    auto newest = archive_->newest(serial_);
    TelemetryMark mark;
    if (!newest) {
      out.restore_error = newest.error();
    } else if (*newest) {
      mark.saved_generation = (*newest)->generation;
      mark.last_attempt = (*newest)->at;
    }
    mark_ = mark;
  }
  const TelemetryPoll& poll = *snap.telemetry;
  if (!poll.capture && !poll.capture_error) return out;
  mark_->last_attempt = snap.taken;
  if (poll.capture_error) {
    ++failed_;
    out.failure = poll.capture_error;
    out.failure_change = failing_.failed(out.failure->reason);
    return out;
  }
  auto saved = archive_->save(serial_, *poll.capture, snap.taken);
  if (!saved) {
    ++failed_;
    out.failure = saved.error();
    out.failure_change = failing_.failed(out.failure->reason);
    return out;
  }
  out.recovered = failing_.succeeded();
  ++saved_;
  mark_->saved_generation = poll.capture->header.controller_generation;
  out.saved = std::move(*saved);
  return out;
}

void add_telemetry_captures(const TelemetryRecorder& recorder, const LabelPrefix& id, MetricSet& out) {
  const Family family{"nvmond_telemetry_captures_total", Family::counter,
                      "Controller-initiated telemetry captures of a drive since nvmond started, by result "
                      "(saved to the state directory, or failed to read or save)."};
  out.add(family, id, {{"result", "saved"}}, static_cast<double>(recorder.saved()));
  out.add(family, id, {{"result", "failed"}}, static_cast<double>(recorder.failed()));
}

}  // namespace nvmond
