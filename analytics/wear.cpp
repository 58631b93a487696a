#include "analytics/wear.hpp"

#include "collectors/health.hpp"
#include "core/clock.hpp"

namespace nvmond {
namespace {

// Beyond a century the projection is "not in this drive's service life" and is
// left unset (it would also overflow a nanosecond time point).
constexpr double kMaxProjectionSeconds = 100 * 365.25 * kSecondsPerDay;

double host_bytes(u128 data_units) { return to_double(data_units) * static_cast<double>(kDataUnitBytes); }

WindowRate rate_between(const SampleRecord& first, const SampleRecord& last, std::uint64_t capacity) {
  WindowRate r;
  if (first.segment != last.segment || last.time <= first.time || last.data_units_written < first.data_units_written) {
    return r;
  }
  r.covered = last.time - first.time;
  double bytes = host_bytes(last.data_units_written - first.data_units_written);
  r.bytes_per_second = bytes / seconds(r.covered);
  if (capacity != 0) r.dwpd = *r.bytes_per_second * kSecondsPerDay / static_cast<double>(capacity);
  return r;
}

}  // namespace

bool is_counter_reset(const SampleRecord& prev, const SampleRecord& next) {
  return next.data_units_written < prev.data_units_written || next.power_on_hours < prev.power_on_hours ||
         (prev.media_bytes_written && next.media_bytes_written &&
          *next.media_bytes_written < *prev.media_bytes_written);
}

std::array<std::optional<SampleRecord>, kWearWindows.size()> window_starts(std::span<const SampleRecord> history,
                                                                           const SampleRecord& latest) {
  std::array<std::optional<SampleRecord>, kWearWindows.size()> out{};
  for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
    const WallTime since = latest.time - kWearWindows[w].length;
    for (const auto& s : history) {
      if (s.time >= since && s.time <= latest.time && s.segment == latest.segment) {
        out[w] = s;
        break;
      }
    }
  }
  return out;
}

WearView compute_wear(const WearInputs& in) {
  WearView v;
  const auto& now = in.latest;
  v.host_bytes_written = host_bytes(now.data_units_written);
  v.percentage_used = now.percentage_used;
  v.rated = in.rated;

  for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
    if (in.window_start[w]) v.windows[w] = rate_between(*in.window_start[w], now, in.capacity_bytes);
  }

  if (now.power_on_hours != 0) {
    v.lifetime_bytes_per_second = v.host_bytes_written / (to_double(now.power_on_hours) * 3600.0);
    if (in.capacity_bytes != 0) {
      v.lifetime_dwpd = *v.lifetime_bytes_per_second * kSecondsPerDay / static_cast<double>(in.capacity_bytes);
    }
  }

  const WindowRate& recent = v.windows[kRecentWindow];
  if (in.rated && in.rated->bytes > 0) {
    v.endurance_used_ratio = v.host_bytes_written / in.rated->bytes;
    if (recent.bytes_per_second && *recent.bytes_per_second > 0) {
      double remaining = in.rated->bytes - v.host_bytes_written;
      double left_s = remaining <= 0 ? 0 : remaining / *recent.bytes_per_second;
      if (left_s <= kMaxProjectionSeconds) v.projected_wearout = now.time + from_seconds(left_s);
    }
    if (recent.dwpd && in.rated->dwpd > 0 && recent.covered >= kMinWarnSpan) {
      v.over_rating = *recent.dwpd > in.rated->dwpd * in.config.warn_factor;
    }
  }

  const auto& start = in.window_start[kRecentWindow];
  if (start && start->segment == now.segment && start->media_bytes_written && now.media_bytes_written &&
      now.data_units_written > start->data_units_written && *now.media_bytes_written >= *start->media_bytes_written) {
    v.write_amplification = to_double(*now.media_bytes_written - *start->media_bytes_written) /
                            host_bytes(now.data_units_written - start->data_units_written);
  }
  return v;
}

}  // namespace nvmond
