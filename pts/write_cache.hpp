#pragma once
// Runs a test with the drive's volatile write cache in the state its profile
// requires (PTS-E: disabled, PTS-C: enabled), and puts the drive back as the
// run found it.
// Setting it is a Set Features that is not saved, so a power cycle also
// returns the drive to its own default; a run that resumes sets it again.
#include <optional>
#include <string>

#include "runmodel/run_header.hpp"
#include "pts/target.hpp"

namespace nvmond {

// Reads the cache and, when it is known and not `required`, sets it and reads
// it back. `earlier`: what a resumed run recorded when it first started, so
// that `found` stays the state before the run, not the one it left behind.
WriteCacheRecord apply_write_cache(TestTarget& target, bool required, const std::optional<WriteCacheRecord>& earlier);
// Whether the run changed the cache and has not put it back yet.
bool write_cache_needs_restore(const WriteCacheRecord& r);
// Puts `found` back when the run changed it: records `restored_at` (`now`) or
// the device's refusal in `restore_failure`. Nothing to do leaves `r` as is.
void restore_write_cache(TestTarget& target, WriteCacheRecord& r, const std::string& now);
// The state the test ran with, for write_cache_condition().
WriteCacheState tested_write_cache(const WriteCacheRecord& r);

}  // namespace nvmond
