#pragma once
// Which OCP Error Recovery (C1h) panics are new to this daemon, so each is
// logged once with what the drive asks the host to do about it.
//
// A panic is new when the drive's Panic ID changes to a non-zero value or
// its Panic Count rises; the first read after start-up reports a panic the
// drive is in as new (the daemon did not see it begin). Kept in memory: a
// restart logs a standing panic once more.
//
// Thread-safety: one per drive, used by that drive's poller thread only.
#include <cstdint>
#include <optional>
#include <string>

#include "collectors/ocp_logs.hpp"

namespace nvmond {

class OcpPanicTracker {
 public:
  // The log line's text for a panic not reported before; nullopt otherwise.
  std::optional<std::string> update(const OcpErrorRecoveryLog& log);

 private:
  std::optional<std::uint64_t> last_id_;
  std::uint8_t last_count_ = 0;
};

// "panic 0x1234abcd (panic count 3): reset action controller_reset+perst,
// wait 500 ms; recovery action format_nvm; then vendor_analysis"
std::string describe_ocp_panic(const OcpErrorRecoveryLog& log);

}  // namespace nvmond
