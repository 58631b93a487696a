#include "collectors/nvme/error_log.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>

namespace nvmond {

namespace {

// NVMe Base Specification 2.0, figure "Error Information Log Entry Data
// Structure". Reserved bytes 30..31 and 42..63 are not read.
constexpr std::array kErrorLogFields = {
    field<&ErrorLogEntry::error_count>("Error Count", 0, 8),
    field<&ErrorLogEntry::sqid>("Submission Queue ID", 8, 2),
    field<&ErrorLogEntry::cid>("Command ID", 10, 2),
    field<&ErrorLogEntry::status>("Status Info", 12, 2),
    field<&ErrorLogEntry::parameter_error_location>("Parameter Error Location", 14, 2),
    field<&ErrorLogEntry::lba>("LBA", 16, 8),
    field<&ErrorLogEntry::nsid>("Namespace", 24, 4),
    field<&ErrorLogEntry::vendor_specific_info>("Vendor Specific Information Available", 28, 1),
    field<&ErrorLogEntry::transport_type>("Transport Type", 29, 1),
    field<&ErrorLogEntry::command_specific_info>("Command Specific Information", 32, 8),
    field<&ErrorLogEntry::transport_type_specific_info>("Transport Type Specific Information", 40, 2),
};

constexpr std::uint8_t kSctGeneric = 0;
constexpr std::uint8_t kSctCommandSpecific = 1;
constexpr std::uint8_t kSctMedia = 2;
constexpr std::uint8_t kSctPath = 3;
constexpr std::uint8_t kSctVendor = 7;

struct StatusName {
  std::uint8_t sct;
  std::uint8_t sc;
  const char* name;
};
// The codes a fleet sees in practice (NVMe 2.0, figures "Generic Command
// Status Values", "Command Specific Status Values", "Media and Data
// Integrity Errors Values", "Path Related Status Values").
constexpr StatusName kStatusNames[] = {
    {0, 0x01, "Invalid Command Opcode"},
    {0, 0x02, "Invalid Field in Command"},
    {0, 0x03, "Command ID Conflict"},
    {0, 0x04, "Data Transfer Error"},
    {0, 0x05, "Commands Aborted due to Power Loss Notification"},
    {0, 0x06, "Internal Error"},
    {0, 0x07, "Command Abort Requested"},
    {0, 0x0B, "Invalid Namespace or Format"},
    {0, 0x0C, "Command Sequence Error"},
    {0, 0x80, "LBA Out of Range"},
    {0, 0x81, "Capacity Exceeded"},
    {0, 0x82, "Namespace Not Ready"},
    {1, 0x01, "Invalid Completion Queue"},
    {1, 0x02, "Invalid Queue Identifier"},
    {1, 0x09, "Invalid Log Page"},
    {1, 0x0A, "Invalid Format"},
    {1, 0x80, "Conflicting Attributes"},
    {1, 0x82, "Attempted Write to Read Only Range"},
    {2, 0x80, "Write Fault"},
    {2, 0x81, "Unrecovered Read Error"},
    {2, 0x82, "End-to-end Guard Check Error"},
    {2, 0x83, "End-to-end Application Tag Check Error"},
    {2, 0x84, "End-to-end Reference Tag Check Error"},
    {2, 0x85, "Compare Failure"},
    {2, 0x86, "Access Denied"},
    {2, 0x87, "Deallocated or Unwritten Logical Block"},
    {3, 0x00, "Internal Path Error"},
    {3, 0x01, "Asymmetric Access Persistent Loss"},
    {3, 0x02, "Asymmetric Access Inaccessible"},
    {3, 0x03, "Asymmetric Access Transition"},
    {3, 0x60, "Controller Pathing Error"},
    {3, 0x70, "Host Pathing Error"},
    {3, 0x71, "Command Aborted By Host"},
};

}  // namespace

std::span<const FieldSpec<ErrorLogEntry>> error_log_entry_fields() { return kErrorLogFields; }

Result<std::vector<ErrorLogEntry>> decode_error_log(std::span<const std::uint8_t> page, std::size_t max_entries) {
  if (page.empty() || page.size() % kErrorLogEntryBytes != 0) {
    return Error{ErrorReason::decode,
                 fmt::format("error information log (01h): expected a multiple of {} bytes, got {}",
                             kErrorLogEntryBytes, page.size())};
  }
  const std::size_t n = std::min(page.size() / kErrorLogEntryBytes, max_entries);
  std::vector<ErrorLogEntry> out;
  for (std::size_t i = 0; i < n; ++i) {
    ErrorLogEntry e;
    apply_fields(error_log_entry_fields(), page.subspan(i * kErrorLogEntryBytes, kErrorLogEntryBytes), e);
    if (e.error_count != 0) out.push_back(e);
  }
  return out;
}

ErrorStatusClass classify_error_status(const ErrorLogEntry& entry) {
  const std::uint8_t sc = entry.status_code();
  switch (entry.status_code_type()) {
    case kSctGeneric:
      // These three are the controller failing a well-formed command; the
      // rest of SCT 0 is a host that sent a command the drive had to refuse.
      return sc == 0x04 || sc == 0x05 || sc == 0x06 ? ErrorStatusClass::controller : ErrorStatusClass::generic_host;
    case kSctCommandSpecific: return ErrorStatusClass::command_specific;
    case kSctMedia: return ErrorStatusClass::media;
    case kSctPath: return ErrorStatusClass::path;
    case kSctVendor: return ErrorStatusClass::vendor;
    default: return ErrorStatusClass::other;
  }
}

std::string_view to_text(ErrorStatusClass c) {
  switch (c) {
    case ErrorStatusClass::command_specific: return "command_specific";
    case ErrorStatusClass::controller: return "controller";
    case ErrorStatusClass::generic_host: return "generic_host";
    case ErrorStatusClass::media: return "media";
    case ErrorStatusClass::other: return "other";
    case ErrorStatusClass::path: return "path";
    case ErrorStatusClass::vendor: return "vendor";
  }
  return "other";
}

std::string error_status_text(const ErrorLogEntry& entry) {
  const std::uint8_t sct = entry.status_code_type();
  const std::uint8_t sc = entry.status_code();
  const char* dnr = entry.do_not_retry() ? ", DNR" : "";
  for (const auto& s : kStatusNames) {
    if (s.sct == sct && s.sc == sc) return fmt::format("{} (SCT {:X}h SC {:02X}h{})", s.name, sct, sc, dnr);
  }
  return fmt::format("SCT {:X}h SC {:02X}h{}", sct, sc, dnr);
}

}  // namespace nvmond
