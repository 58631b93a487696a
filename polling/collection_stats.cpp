#include "polling/collection_stats.hpp"

namespace nvmond {

void CollectionStats::add_to(const LabelPrefix& id, MetricSet& out) const {
  out.add({"nvmond_collections_total", Family::counter, "Polls of a drive that completed (ok or not)."}, id,
          static_cast<double>(polls));
  out.add({"nvmond_collection_duration_seconds", Family::gauge, "Duration of the last poll of a drive."}, id,
          last_duration_s);
  if (last_success_unix > 0) {
    out.add({"nvmond_last_collection_timestamp_seconds", Family::gauge,
             "Clock time of the last successful poll of a drive (Unix seconds)."},
            id, last_success_unix);
  }
  for (const auto& [reason, n] : errors_by_reason) {
    out.add({"nvmond_collection_errors_total", Family::counter, "Failed polls of a drive, by reason."}, id,
            {{"reason", to_text(reason)}}, static_cast<double>(n));
  }
}

}  // namespace nvmond
