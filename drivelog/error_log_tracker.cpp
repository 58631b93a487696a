#include "drivelog/error_log_tracker.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include "core/log.hpp"

namespace nvmond {

namespace {

constexpr const char* kErrorLogStateKey = "error_log";

std::uint64_t clamp_u64(u128 v) {
  return static_cast<std::uint64_t>(std::min<u128>(v, std::numeric_limits<std::uint64_t>::max()));
}

}  // namespace

std::string encode_error_log_state(std::uint64_t last_count, const ErrorClassCounts& counts) {
  std::string out = std::to_string(last_count);
  for (const auto n : counts) out += " " + std::to_string(n);
  return out;
}

std::optional<std::pair<std::uint64_t, ErrorClassCounts>> decode_error_log_state(const std::string& text) {
  std::istringstream in(text);
  std::uint64_t last = 0;
  ErrorClassCounts counts{};
  if (!(in >> last)) return std::nullopt;
  for (auto& n : counts) {
    if (!(in >> n)) return std::nullopt;
  }
  std::string rest;
  if (in >> rest) return std::nullopt;
  return std::make_pair(last, counts);
}

std::uint64_t media_and_path_errors(const ErrorClassCounts& counts) {
  return counts[static_cast<std::size_t>(ErrorStatusClass::media)] +
         counts[static_cast<std::size_t>(ErrorStatusClass::path)];
}

bool should_read_error_log(u128 smart_count, std::optional<std::uint64_t> seen) {
  return seen && clamp_u64(smart_count) != *seen;
}

std::optional<Error> ErrorLogTracker::restore(const DriveKey& drive) {
  auto stored = store_.state(drive, kErrorLogStateKey);
  if (!stored) return stored.error();
  last_count_.reset();
  counts_ = {};
  if (*stored) {
    if (auto decoded = decode_error_log_state(**stored)) {
      last_count_ = decoded->first;
      counts_ = decoded->second;
    } else {
      // Counting the log again is the lesser harm than never counting it.
      log::warn("drive {} ({}): stored error log state is unreadable; reading the log as new", drive.serial,
                drive.model);
    }
  }
  drive_ = drive;
  return std::nullopt;
}

std::optional<std::uint64_t> ErrorLogTracker::seen() const {
  if (!drive_) return std::nullopt;
  return last_count_.value_or(0);
}

ErrorLogTracker::Update ErrorLogTracker::update(const DriveKey& drive, const HealthSnapshot& snap) {
  Update out;
  if (!drive_ || !(*drive_ == drive)) {
    if (auto e = restore(drive)) {
      drive_.reset();
      out.error = e;
      return out;
    }
  }
  if (!snap.error_log) return out;
  const std::uint64_t smart_count = clamp_u64(snap.smart.error_log_entries);
  std::uint64_t above = last_count_.value_or(0);
  if (last_count_ && smart_count < *last_count_) {
    out.reset = true;
    above = 0;
  }
  for (const auto& e : *snap.error_log) {
    if (e.error_count > above) out.fresh.push_back(e);
  }
  std::sort(out.fresh.begin(), out.fresh.end(),
            [](const auto& a, const auto& b) { return a.error_count < b.error_count; });
  // A drive that repeats an entry (some firmware fills unused slots with the
  // newest) must not count it twice.
  out.fresh.erase(std::unique(out.fresh.begin(), out.fresh.end(),
                              [](const auto& a, const auto& b) { return a.error_count == b.error_count; }),
                  out.fresh.end());
  // SMART was read before the log: an error logged in between is in the log
  // already, and must not be counted again at the next read.
  std::uint64_t newest = smart_count;
  if (!out.fresh.empty()) newest = std::max(newest, out.fresh.back().error_count);
  if (!out.reset && last_count_) newest = std::max(newest, *last_count_);
  if (last_count_ == newest && out.fresh.empty()) return out;

  ErrorClassCounts counts = counts_;
  for (const auto& e : out.fresh) ++counts[static_cast<std::size_t>(classify_error_status(e))];
  PollRecord record;
  record.drive = drive;
  record.state.emplace_back(kErrorLogStateKey, encode_error_log_state(newest, counts));
  if (auto committed = store_.commit(record); !committed) {
    // Not counted: the next poll reads the log again and tries once more,
    // which is better than counts that a restart would repeat.
    out.error = committed.error();
    out.fresh.clear();
    out.reset = false;
    return out;
  }
  last_count_ = newest;
  counts_ = counts;
  return out;
}

}  // namespace nvmond
