#pragma once
// Rated endurance of a drive: how many host bytes it is warranted to accept.
// Sources, most trusted first:
//   "config"  the operator's rating from the [[device]] table (DriveRating);
//   "drive"   the drive's own estimate, OCP C0 "endurance estimate" (bytes);
//   "builtin" a small table of models with published datasheet ratings —
//             a FALLBACK only, matched by model substring and capacity.
// None of them: no rating, and the metrics that need one are not exported.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "analytics/config.hpp"
#include "collectors/health.hpp"

namespace nvmond {

// Days per warranty year in DWPD ↔ TBW conversions (JEDEC JESD218 and the
// vendors' datasheets use 365).
inline constexpr double kDaysPerYear = 365.0;
// Warranty assumed when only a byte total is known (consumer TBW ratings and
// OCP datacenter drives are almost always 5-year).
inline constexpr double kDefaultWarrantyYears = 5.0;

struct RatedEndurance {
  double bytes = 0;  // host bytes over the warranty
  double dwpd = 0;   // 0 when the capacity is unknown
  double warranty_years = 0;
  std::string_view source;  // "config", "drive", "builtin"
};

// One row of the fallback table.
struct KnownEndurance {
  std::string_view model_contains;   // case-sensitive substring of the model number
  std::uint64_t min_capacity_bytes;  // inclusive range the row applies to
  std::uint64_t max_capacity_bytes;
  double rated_dwpd;       // either this (with warranty_years) …
  double rated_tbw_bytes;  // … or this; the other is 0
  double warranty_years;
  std::string_view reference;  // where the number comes from
};

std::span<const KnownEndurance> known_endurance_table();

std::optional<RatedEndurance> resolve_endurance(const DriveRating& configured, std::string_view model,
                                                std::uint64_t capacity_bytes, const std::optional<OcpSmartLog>& ocp);

}  // namespace nvmond
