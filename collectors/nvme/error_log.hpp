#pragma once
// The Error Information log (Log ID 01h): its decoder and what an entry's
// status means. Pure functions, like decode.hpp, so the libnvme backend, the
// simulated drive's tests and the fixture tests read entries alike.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/health.hpp"
#include "collectors/nvme/field_table.hpp"
#include "core/result.hpp"

namespace nvmond {

inline constexpr std::size_t kErrorLogEntryBytes = 64;
inline constexpr std::uint8_t kErrorLogId = 0x01;
// ELPE allows 256 entries; more than 64 would only re-read history the
// count already says is old, so a read is capped here (4 KiB, one page).
inline constexpr std::size_t kMaxErrorLogEntries = 64;

// NVMe 2.0, figure "Error Information Log Entry Data Structure". `page` is a
// whole number of 64-byte entries (anything else is Error{decode}); at most
// `max_entries` are read. Empty entries (error count 0) are left out; the
// others keep the drive's order (newest first).
Result<std::vector<ErrorLogEntry>> decode_error_log(std::span<const std::uint8_t> page, std::size_t max_entries);
std::span<const FieldSpec<ErrorLogEntry>> error_log_entry_fields();

// What an entry's status says about whose fault it was: the status_class
// label. Fixed, in label order.
enum class ErrorStatusClass : std::uint8_t {
  command_specific,  // SCT 1: the command's own rules (invalid log page, queue id, ...)
  controller,        // SCT 0 data transfer error, power-loss abort, internal error
  generic_host,      // the rest of SCT 0: invalid opcode, field, namespace, LBA range...
  media,             // SCT 2: media and data integrity (unrecovered read, write fault, PI)
  other,             // SCT 4..6, reserved
  path,              // SCT 3: path related (ANA states, host or controller pathing)
  vendor,            // SCT 7
};
inline constexpr std::size_t kErrorStatusClassCount = 7;
ErrorStatusClass classify_error_status(const ErrorLogEntry& entry);
std::string_view to_text(ErrorStatusClass c);

// "Unrecovered Read Error (SCT 2h SC 81h, DNR)": the spec's name where the
// table knows it, always with its codes.
std::string error_status_text(const ErrorLogEntry& entry);

}  // namespace nvmond
