#include "analytics/endurance.hpp"

namespace nvmond {
namespace {

constexpr std::uint64_t kGB = 1'000'000'000;
constexpr double kTB = 1e12;

// FALLBACK ratings from public datasheets (TBW = terabytes written, 10^12).
// Consumer drives are rated in TBW (e.g. 150/300/600/1200 TB by capacity),
// datacenter drives in DWPD over 5 years (read-intensive ~0.5–1, mixed-use ~3).
// Prefer the operator's rating: OEM variants of a model may differ.
constexpr KnownEndurance kKnown[] = {
    // Samsung 970 EVO Plus data sheet (rev 1.0, 2019): 250 GB 150 TBW, 500 GB
    // 300 TBW, 1 TB 600 TBW, 2 TB 1200 TBW, 5-year limited warranty.
    {"970 EVO Plus", 200 * kGB, 300 * kGB, 0, 150 * kTB, 5, "Samsung 970 EVO Plus data sheet"},
    {"970 EVO Plus", 400 * kGB, 600 * kGB, 0, 300 * kTB, 5, "Samsung 970 EVO Plus data sheet"},
    {"970 EVO Plus", 900 * kGB, 1100 * kGB, 0, 600 * kTB, 5, "Samsung 970 EVO Plus data sheet"},
    {"970 EVO Plus", 1900 * kGB, 2100 * kGB, 0, 1200 * kTB, 5, "Samsung 970 EVO Plus data sheet"},
    // Samsung 980 PRO data sheet (2020): same TBW ladder, 5-year warranty.
    {"980 PRO", 200 * kGB, 300 * kGB, 0, 150 * kTB, 5, "Samsung 980 PRO data sheet"},
    {"980 PRO", 400 * kGB, 600 * kGB, 0, 300 * kTB, 5, "Samsung 980 PRO data sheet"},
    {"980 PRO", 900 * kGB, 1100 * kGB, 0, 600 * kTB, 5, "Samsung 980 PRO data sheet"},
    {"980 PRO", 1900 * kGB, 2100 * kGB, 0, 1200 * kTB, 5, "Samsung 980 PRO data sheet"},
};

RatedEndurance from_dwpd(double dwpd, double years, std::uint64_t capacity, std::string_view source) {
  return {dwpd * static_cast<double>(capacity) * kDaysPerYear * years, dwpd, years, source};
}

RatedEndurance from_bytes(double bytes, double years, std::uint64_t capacity, std::string_view source) {
  double dwpd = capacity == 0 ? 0 : bytes / (static_cast<double>(capacity) * kDaysPerYear * years);
  return {bytes, dwpd, years, source};
}

}  // namespace

std::span<const KnownEndurance> known_endurance_table() { return kKnown; }

std::optional<RatedEndurance> resolve_endurance(const DriveRating& configured, std::string_view model,
                                                std::uint64_t capacity_bytes, const std::optional<OcpSmartLog>& ocp) {
  const double years = configured.warranty_years.value_or(kDefaultWarrantyYears);
  if (configured.rated_tbw_bytes) {
    return from_bytes(static_cast<double>(*configured.rated_tbw_bytes), years, capacity_bytes, "config");
  }
  // A DWPD rating means nothing without the capacity it multiplies.
  if (configured.rated_dwpd && capacity_bytes != 0) {
    return from_dwpd(*configured.rated_dwpd, years, capacity_bytes, "config");
  }
  if (ocp && ocp->endurance_estimate != 0) {
    return from_bytes(to_double(ocp->endurance_estimate), kDefaultWarrantyYears, capacity_bytes, "drive");
  }
  for (const auto& k : kKnown) {
    if (model.find(k.model_contains) == std::string_view::npos) continue;
    if (capacity_bytes < k.min_capacity_bytes || capacity_bytes > k.max_capacity_bytes) continue;
    if (k.rated_tbw_bytes > 0) return from_bytes(k.rated_tbw_bytes, k.warranty_years, capacity_bytes, "builtin");
    return from_dwpd(k.rated_dwpd, k.warranty_years, capacity_bytes, "builtin");
  }
  return std::nullopt;
}

}  // namespace nvmond
