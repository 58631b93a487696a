#pragma once
// A round record (runmodel/round_record.hpp) made from what one element's
// round measured: rates over its time, quantiles from its recorder, the
// counts per report bucket.
#include "core/clock.hpp"
#include "pts/plan.hpp"
#include "pts/target.hpp"
#include "runmodel/round_record.hpp"

namespace nvmond {

RoundRecord make_round(const Element& e, const Measurement& m, WallTime started);

}  // namespace nvmond
