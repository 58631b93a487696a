#include "collectors/nvme/libnvme_device.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <libnvme.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <vector>

#include "collectors/nvme/command_error.hpp"
#include "collectors/nvme/decode.hpp"
#include "collectors/nvme/error_log.hpp"
#include "collectors/nvme/ocp_log_pages.hpp"
#include "collectors/nvme/pcie_link.hpp"
#include "collectors/nvme/persistent_event_log.hpp"
#include "collectors/nvme/self_test_log.hpp"
#include "collectors/nvme/telemetry_log.hpp"
#include "core/log.hpp"

namespace nvmond {

namespace {

// The active namespace list holds at most 1024 NSIDs per page; a full page
// means "ask again from the last one". Bounded so a broken controller cannot
// keep us looping.
constexpr std::size_t kNsListEntries = kIdentifyBytes / 4;
constexpr int kMaxNsListPages = 64;
// Identify Controller LPA bit 4: the controller keeps a Persistent Event log.
constexpr std::uint8_t kLpaPersistentEventLog = 1u << 4;
// Well under any controller's maximum data transfer size (MDTS is at least
// 4 KiB and 128 KiB or more on every drive nvmond has met).
constexpr std::size_t kPelReadChunkBytes = 64 * 1024;

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::uint32_t to_timeout_ms(std::chrono::milliseconds t) {
  const auto ms = std::clamp<std::chrono::milliseconds::rep>(t.count(), 0, std::numeric_limits<std::uint32_t>::max());
  return static_cast<std::uint32_t>(ms);
}

// Why a controller without the capability refuses, by
// LibnvmeDevice::Capability.
constexpr const char* kLacking[] = {
    "the controller does not support Device Self-test (OACS bit 4 clear)",
    "the controller keeps no Persistent Event log (LPA bit 4 clear)",
    "the controller has no telemetry logs (LPA bit 3 clear)",
    "the controller does not support host controlled thermal management (HCTMA bit 0 clear)",
};

std::string threshold_command(unsigned sensor, ThresholdKind kind) {
  const char* which = kind == ThresholdKind::over ? "over" : "under";
  if (sensor == 0) return fmt::format("get-features temperature threshold (04h) composite {}", which);
  return fmt::format("get-features temperature threshold (04h) sensor {} {}", sensor, which);
}

}  // namespace

LibnvmeDevice::LibnvmeDevice(std::string path, std::chrono::milliseconds command_timeout,
                             std::filesystem::path sysfs_class_nvme)
    : path_(std::move(path)),
      name_(base_name(path_)),
      timeout_ms_(to_timeout_ms(command_timeout)),
      sysfs_class_nvme_(std::move(sysfs_class_nvme)) {}

LibnvmeDevice::~LibnvmeDevice() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int> LibnvmeDevice::fd() {
  if (fd_ >= 0) return fd_;
  // Read access is enough for admin passthrough; CAP_SYS_ADMIN is checked by the kernel.
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failed(fmt::format("open {}", path_), Outcome{-1, errno});
  fd_ = fd;
  return fd_;
}

Error LibnvmeDevice::failed(std::string_view command, Outcome outcome) {
  Error e = command_error(name_, command, outcome.rc, outcome.err);
  // A controller that went away may come back under the same name after a
  // reset or re-plug: drop the stale descriptor so the next call reopens.
  if (e.reason == ErrorReason::absent && fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  return e;
}

LibnvmeDevice::Outcome LibnvmeDevice::identify_page(int cns, std::uint32_t nsid, std::span<std::uint8_t> page) {
  nvme_identify_args args = {
      .result = nullptr,
      .data = page.data(),
      .args_size = sizeof(args),
      .fd = fd_,
      .timeout = timeout_ms_,
      .cns = static_cast<nvme_identify_cns>(cns),
      .csi = NVME_CSI_NVM,
      .nsid = nsid,
      .cntid = NVME_CNTLID_NONE,
      .cns_specific_id = NVME_CNSSPECID_NONE,
      .uuidx = NVME_UUID_NONE,
  };
  return Outcome::of(nvme_identify(&args));
}

LibnvmeDevice::Outcome LibnvmeDevice::get_log_page(std::uint8_t lid, std::span<std::uint8_t> page) {
  return get_log_at(lid, NVME_LOG_LSP_NONE, 0, page);
}

LibnvmeDevice::Outcome LibnvmeDevice::get_log_at(std::uint8_t lid, std::uint8_t lsp, std::uint64_t offset,
                                                 std::span<std::uint8_t> page, std::uint32_t nsid) {
  nvme_get_log_args args = {
      .lpo = offset,
      .result = nullptr,
      .log = page.data(),
      .args_size = sizeof(args),
      .fd = fd_,
      .timeout = timeout_ms_,
      .lid = static_cast<nvme_cmd_get_log_lid>(lid),
      .len = static_cast<std::uint32_t>(page.size()),
      .nsid = nsid,
      .csi = NVME_CSI_NVM,
      .lsi = NVME_LOG_LSI_NONE,
      .lsp = lsp,
      .uuidx = NVME_UUID_NONE,
      // Like nvme-cli: reading SMART with RAE cleared re-arms the controller's
      // SMART asynchronous events instead of leaving them masked.
      .rae = false,
      .ot = false,
  };
  return Outcome::of(nvme_get_log(&args));
}

LibnvmeDevice::Outcome LibnvmeDevice::get_current_feature(std::uint8_t fid, std::uint32_t cdw11, std::uint32_t& cdw0) {
  nvme_get_features_args args = {
      .result = &cdw0,
      .data = nullptr,
      .args_size = sizeof(args),
      .fd = fd_,
      .timeout = timeout_ms_,
      .nsid = NVME_NSID_NONE,
      .sel = NVME_GET_FEATURES_SEL_CURRENT,
      .cdw11 = cdw11,
      .data_len = 0,
      .fid = fid,
      .uuidx = NVME_UUID_NONE,
  };
  return Outcome::of(nvme_get_features(&args));
}

Result<std::vector<std::uint32_t>> LibnvmeDevice::active_namespaces() {
  std::vector<std::uint32_t> all;
  std::vector<std::uint8_t> page(kIdentifyBytes);
  std::uint32_t after = 0;
  for (int i = 0; i < kMaxNsListPages; ++i) {
    std::fill(page.begin(), page.end(), std::uint8_t{0});
    const char* command = "identify active namespace list (CNS 02h)";
    if (auto o = identify_page(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, after, page); o.rc != 0) {
      return failed(command, o);
    }
    auto ids = decode_namespace_list(page);
    if (!ids) return Error{ids.error().reason, fmt::format("{}: {}: {}", name_, command, ids.error().message)};
    all.insert(all.end(), ids->begin(), ids->end());
    if (ids->size() < kNsListEntries) break;
    after = ids->back();
  }
  return all;
}

Result<DriveInfo> LibnvmeDevice::identify() {
  if (auto f = fd(); !f) return f.error();

  std::vector<std::uint8_t> page(kIdentifyBytes);
  const char* ctrl_command = "identify controller (CNS 01h)";
  if (auto o = identify_page(NVME_IDENTIFY_CNS_CTRL, NVME_NSID_NONE, page); o.rc != 0) {
    return failed(ctrl_command, o);
  }
  auto ctrl = decode_identify_controller(page);
  if (!ctrl) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, ctrl_command, ctrl.error().message)};

  DriveInfo info = drive_info(*ctrl, path_, "libnvme");
  error_log_entries_ = std::min<std::size_t>(std::size_t{ctrl->elpe} + 1, kMaxErrorLogEntries);
  capabilities_ =
      std::array<bool, 4>{(ctrl->oacs & kOacsDeviceSelfTest) != 0, (ctrl->lpa & kLpaPersistentEventLog) != 0,
                          (ctrl->lpa & kLpaTelemetry) != 0, (ctrl->hctma & kHctmaSupported) != 0};

  auto nsids = active_namespaces();
  if (!nsids) return nsids.error();
  std::uint64_t ns_bytes = 0;
  for (const std::uint32_t nsid : *nsids) {
    const std::string command = fmt::format("identify namespace {} (CNS 00h)", nsid);
    std::fill(page.begin(), page.end(), std::uint8_t{0});
    if (auto o = identify_page(NVME_IDENTIFY_CNS_NS, nsid, page); o.rc != 0) return failed(command, o);
    auto ns = decode_identify_namespace(page, nsid);
    if (!ns) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, ns.error().message)};
    ns_bytes += ns->size_bytes();
    info.namespaces.push_back(*ns);
  }
  const u128 max64 = std::numeric_limits<std::uint64_t>::max();
  info.capacity_bytes = ns_bytes != 0 ? ns_bytes : static_cast<std::uint64_t>(std::min(ctrl->tnvmcap, max64));
  return info;
}

Result<SmartLog> LibnvmeDevice::read_smart() {
  if (auto f = fd(); !f) return f.error();
  const char* command = "get-log SMART (02h)";
  std::vector<std::uint8_t> page(kSmartLogBytes);
  if (auto o = get_log_page(NVME_LOG_LID_SMART, page); o.rc != 0) return failed(command, o);
  auto smart = decode_smart_log(page);
  if (!smart) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, smart.error().message)};
  return smart;
}

Result<std::optional<OcpSmartLog>> LibnvmeDevice::read_ocp() {
  if (ocp_absent_) return std::optional<OcpSmartLog>{};
  if (auto f = fd(); !f) return f.error();
  const char* command = "get-log OCP SMART (C0h)";
  std::vector<std::uint8_t> page(kOcpSmartLogBytes);
  if (auto o = get_log_page(kOcpSmartLogId, page); o.rc != 0) {
    if (!is_unsupported_status(o.rc)) return failed(command, o);
    log::info("{}: no OCP SMART log: {}", name_, command_error(name_, command, o.rc, o.err).message);
    ocp_absent_ = true;
    ocp_checked_ = true;
    return std::optional<OcpSmartLog>{};
  }
  // Many non-OCP drives answer C0h with a vendor-specific page: the GUID says
  // whose page it is.
  if (!has_ocp_smart_log_guid(page)) {
    log::info("{}: log C0h is not the OCP SMART log (GUID differs); not reading it again", name_);
    ocp_absent_ = true;
    ocp_checked_ = true;
    return std::optional<OcpSmartLog>{};
  }
  ocp_checked_ = true;
  auto ocp = decode_ocp_smart_log(page);
  if (!ocp) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, ocp.error().message)};
  return std::optional<OcpSmartLog>{*ocp};
}

Result<std::optional<std::vector<std::uint8_t>>> LibnvmeDevice::ocp_page(const OcpLogPage& spec) {
  using Page = std::optional<std::vector<std::uint8_t>>;
  if (!ocp_checked_) {
    if (auto c0 = read_ocp(); !c0) return c0.error();
  }
  if (ocp_absent_ || std::find(ocp_refused_.begin(), ocp_refused_.end(), spec.id) != ocp_refused_.end()) {
    return Page{};
  }
  if (auto f = fd(); !f) return f.error();
  const std::string command = fmt::format("get-log {}", spec.name);
  std::vector<std::uint8_t> page(spec.bytes);
  if (auto o = get_log_page(spec.id, page); o.rc != 0) {
    if (!is_unsupported_status(o.rc)) return failed(command, o);
    log::info("{}: {}: not supported: {}", name_, command, command_error(name_, command, o.rc, o.err).message);
    ocp_refused_.push_back(spec.id);
    return Page{};
  }
  if (!has_ocp_guid(page, spec)) {
    log::info("{}: {}: not the OCP log (GUID differs); not reading it again", name_, command);
    ocp_refused_.push_back(spec.id);
    return Page{};
  }
  return Page{std::move(page)};
}

template <typename Log>
Result<std::optional<Log>> LibnvmeDevice::read_ocp_page(const OcpLogPage& spec,
                                                        Result<Log> (*decode)(std::span<const std::uint8_t>)) {
  auto page = ocp_page(spec);
  if (!page) return page.error();
  if (!*page) return std::optional<Log>{};
  auto log = decode(**page);
  if (!log) return Error{ErrorReason::decode, fmt::format("{}: get-log {}: {}", name_, spec.name, log.error().message)};
  return std::optional<Log>{*log};
}

Result<std::optional<OcpLatencyMonitorLog>> LibnvmeDevice::read_ocp_latency_monitor() {
  return read_ocp_page<OcpLatencyMonitorLog>(kOcpLatencyMonitorPage, &decode_ocp_latency_monitor_log);
}

Result<std::optional<OcpErrorRecoveryLog>> LibnvmeDevice::read_ocp_error_recovery() {
  return read_ocp_page<OcpErrorRecoveryLog>(kOcpErrorRecoveryPage, &decode_ocp_error_recovery_log);
}

Result<std::vector<std::uint8_t>> LibnvmeDevice::read_ocp_log(const OcpLogPage& spec) {
  auto page = ocp_page(spec);
  if (!page) return page.error();
  if (!*page) {
    return Error{ErrorReason::unsupported,
                 fmt::format("{}: get-log {}: {}", name_, spec.name,
                             ocp_absent_ ? "the drive has no OCP SMART log (C0h)" : "the drive has no such OCP log")};
  }
  return std::move(**page);
}

Result<TemperatureThresholds> LibnvmeDevice::read_temperature_thresholds() {
  if (auto f = fd(); !f) return f.error();
  TemperatureThresholds out;
  for (unsigned sensor = 0; sensor < out.over_k.size(); ++sensor) {
    for (const ThresholdKind kind : {ThresholdKind::over, ThresholdKind::under}) {
      bool& unsupported = kind == ThresholdKind::over ? over_unsupported_[sensor] : under_unsupported_[sensor];
      if (unsupported) continue;
      std::uint32_t cdw0 = 0;
      const auto o = get_current_feature(NVME_FEAT_FID_TEMP_THRESH, temperature_threshold_cdw11(sensor, kind), cdw0);
      if (o.rc != 0) {
        // Sensors the controller does not implement answer Invalid Field.
        if (is_unsupported_status(o.rc)) {
          unsupported = true;
          continue;
        }
        return failed(threshold_command(sensor, kind), o);
      }
      auto& slot = kind == ThresholdKind::over ? out.over_k[sensor] : out.under_k[sensor];
      slot = decode_temperature_threshold(cdw0);
    }
  }
  return out;
}

Result<std::optional<HostThermalManagement>> LibnvmeDevice::read_host_thermal_management() {
  const char* command = "get features host controlled thermal management (10h)";
  if (auto refused = require_capability(Capability::host_thermal_management, command)) {
    if (refused->reason == ErrorReason::unsupported) return std::optional<HostThermalManagement>{};
    return *refused;
  }
  std::uint32_t cdw0 = 0;
  if (auto o = get_current_feature(NVME_FEAT_FID_HCTM, 0, cdw0); o.rc != 0) {
    if (!is_unsupported_status(o.rc)) return failed(command, o);
    // HCTMA said yes, the controller says no: believe the command.
    log::info("{}: {}: not supported although HCTMA says so: {}", name_, command,
              command_error(name_, command, o.rc, o.err).message);
    (*capabilities_)[static_cast<std::size_t>(Capability::host_thermal_management)] = false;
    return std::optional<HostThermalManagement>{};
  }
  return std::optional<HostThermalManagement>{decode_host_thermal_management(cdw0)};
}

std::optional<Error> LibnvmeDevice::format_user_data_erase(std::uint32_t nsid) {
  if (auto f = fd(); !f) return f.error();
  std::vector<std::uint8_t> page(kIdentifyBytes);
  const std::string identify = fmt::format("identify namespace {} (CNS 00h)", nsid);
  if (auto o = identify_page(NVME_IDENTIFY_CNS_NS, nsid, page); o.rc != 0) return failed(identify, o);
  auto ns = decode_identify_namespace(page, nsid);
  if (!ns) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, identify, ns.error().message)};
  std::uint32_t result = 0;
  nvme_format_nvm_args args{};
  args.result = &result;
  args.args_size = sizeof(args);
  args.fd = fd_;
  args.timeout = to_timeout_ms(kFormatTimeout);
  args.nsid = nsid;
  args.mset = NVME_FORMAT_MSET_SEPARATE;
  args.pi = NVME_FORMAT_PI_DISABLE;
  args.pil = NVME_FORMAT_PIL_LAST;
  args.ses = NVME_FORMAT_SES_USER_DATA_ERASE;
  args.lbaf = static_cast<std::uint8_t>(ns->lba_format & 0x0f);
  args.lbafu = static_cast<std::uint8_t>(ns->lba_format >> 4);
  if (auto o = Outcome::of(nvme_format_nvm(&args)); o.rc != 0) {
    return failed(fmt::format("format NVM namespace {} (80h), user data erase", nsid), o);
  }
  return std::nullopt;
}

Result<bool> LibnvmeDevice::read_volatile_write_cache() {
  if (auto f = fd(); !f) return f.error();
  std::uint32_t cdw0 = 0;
  if (auto o = get_current_feature(NVME_FEAT_FID_VOLATILE_WC, 0, cdw0); o.rc != 0) {
    return failed("get features volatile write cache (06h)", o);
  }
  return (cdw0 & 1u) != 0;  // WCE
}

std::optional<Error> LibnvmeDevice::set_volatile_write_cache(bool enabled) {
  if (auto f = fd(); !f) return f.error();
  std::uint32_t cdw0 = 0;
  nvme_set_features_args args = {
      .result = &cdw0,
      .data = nullptr,
      .args_size = sizeof(args),
      .fd = fd_,
      .timeout = timeout_ms_,
      .nsid = NVME_NSID_NONE,
      .cdw11 = enabled ? 1u : 0u,  // WCE
      .cdw12 = 0,
      .cdw13 = 0,
      .cdw15 = 0,
      .data_len = 0,
      .save = false,
      .uuidx = NVME_UUID_NONE,
      .fid = NVME_FEAT_FID_VOLATILE_WC,
  };
  const char* command =
      enabled ? "set features volatile write cache (06h) enable" : "set features volatile write cache (06h) disable";
  if (auto o = Outcome::of(nvme_set_features(&args)); o.rc != 0) {
    if (is_unsupported_status(o.rc))
      return Error{ErrorReason::unsupported, command_error(name_, command, o.rc, o.err).message};
    return failed(command, o);
  }
  return std::nullopt;
}

Result<std::vector<ErrorLogEntry>> LibnvmeDevice::read_error_log() {
  if (error_log_entries_ == 0) {
    if (auto id = identify(); !id) return id.error();
  }
  if (auto f = fd(); !f) return f.error();
  const char* command = "get-log error information (01h)";
  std::vector<std::uint8_t> page(error_log_entries_ * kErrorLogEntryBytes);
  if (auto o = get_log_page(kErrorLogId, page); o.rc != 0) {
    if (is_unsupported_status(o.rc)) {
      Error e = command_error(name_, command, o.rc, o.err);
      return Error{ErrorReason::unsupported, e.message};
    }
    return failed(command, o);
  }
  auto entries = decode_error_log(page, error_log_entries_);
  if (!entries) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, entries.error().message)};
  return entries;
}

std::optional<Error> LibnvmeDevice::require_capability(Capability capability, std::string_view command) {
  if (!capabilities_) {
    if (auto id = identify(); !id) return id.error();
  }
  const auto index = static_cast<std::size_t>(capability);
  if (!(*capabilities_)[index]) {
    return Error{ErrorReason::unsupported, fmt::format("{}: {}: {}", name_, command, kLacking[index])};
  }
  if (auto f = fd(); !f) return f.error();
  return std::nullopt;
}

Result<SelfTestLog> LibnvmeDevice::read_self_test_log() {
  const char* command = "get-log device self-test (06h)";
  if (auto refused = require_capability(Capability::self_test, command)) return *refused;
  // What nvme_get_log_device_self_test() sends (LID 06h, NSID FFFFFFFFh,
  // sizeof(nvme_self_test_log) bytes), but under the command timeout: that
  // helper uses the kernel's default.
  static_assert(sizeof(nvme_self_test_log) == kSelfTestLogBytes);
  std::vector<std::uint8_t> page(kSelfTestLogBytes);
  if (auto o = get_log_page(NVME_LOG_LID_DEVICE_SELF_TEST, page); o.rc != 0) {
    if (is_unsupported_status(o.rc)) {
      Error e = command_error(name_, command, o.rc, o.err);
      return Error{ErrorReason::unsupported, e.message};
    }
    return failed(command, o);
  }
  auto decoded = decode_self_test_log(page);
  if (!decoded) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, decoded.error().message)};
  return decoded;
}

Result<PersistentEventLog> LibnvmeDevice::read_persistent_event_log() {
  if (auto refused = require_capability(Capability::persistent_event_log, "get-log persistent event (0Dh)")) {
    return *refused;
  }
  // The context fixes what the log holds until it is released, so the
  // chunks read below belong together; one left established keeps the
  // drive holding that snapshot until a reset.
  const char* establish = "get-log persistent event (0Dh), establish context and read";
  std::vector<std::uint8_t> page(kPelHeaderBytes);
  if (auto o = get_log_at(kPersistentEventLogId, NVME_PEVENT_LOG_EST_CTX_AND_READ, 0, page); o.rc != 0) {
    if (is_unsupported_status(o.rc)) {
      return Error{ErrorReason::unsupported, command_error(name_, establish, o.rc, o.err).message};
    }
    return failed(establish, o);
  }
  auto result = read_persistent_event_body(page);
  // Like nvme-cli, the release carries a header-sized buffer: a zero-length
  // transfer is no valid Get Log Page.
  std::vector<std::uint8_t> ignored(kPelHeaderBytes);
  const char* release = "get-log persistent event (0Dh), release context";
  if (auto o = get_log_at(kPersistentEventLogId, NVME_PEVENT_LOG_RELEASE_CTX, 0, ignored); o.rc != 0) {
    // The log read is good; the drive releases a context on its own at a
    // controller reset, and the next establish replaces this one.
    log::warn("{}", failed(release, o).message);
  }
  return result;
}

Result<PersistentEventLog> LibnvmeDevice::read_persistent_event_body(std::vector<std::uint8_t>& page) {
  const char* command = "get-log persistent event (0Dh), read";
  auto header = decode_pel_header(page);
  if (!header) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, header.error().message)};
  const std::size_t total = static_cast<std::size_t>(
      std::clamp<std::uint64_t>(header->total_log_length, kPelHeaderBytes, kMaxPersistentEventLogBytes));
  // Transfers are whole dwords; the decoder reads no further than TLL.
  const std::size_t padded = (total + 3) & ~std::size_t{3};
  page.resize(padded, 0);
  for (std::size_t offset = kPelHeaderBytes; offset < padded; offset += kPelReadChunkBytes) {
    const std::size_t n = std::min(kPelReadChunkBytes, padded - offset);
    auto chunk = std::span(page).subspan(offset, n);
    if (auto o = get_log_at(kPersistentEventLogId, NVME_PEVENT_LOG_READ, offset, chunk); o.rc != 0) {
      return failed(fmt::format("{} at offset {}", command, offset), o);
    }
  }
  auto log = decode_persistent_event_log(page);
  if (!log) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, log.error().message)};
  return log;
}

Result<TelemetryHeader> LibnvmeDevice::telemetry_header(std::string_view command) {
  if (auto refused = require_capability(Capability::telemetry, command)) return *refused;
  std::vector<std::uint8_t> page(kTelemetryHeaderBytes);
  if (auto o = get_log_at(kTelemetryControllerLogId, NVME_LOG_LSP_NONE, 0, page, NVME_NSID_NONE); o.rc != 0) {
    if (is_unsupported_status(o.rc)) {
      return Error{ErrorReason::unsupported, command_error(name_, command, o.rc, o.err).message};
    }
    return failed(command, o);
  }
  auto header = decode_telemetry_header(page);
  if (!header) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, header.error().message)};
  return header;
}

Result<TelemetryHeader> LibnvmeDevice::read_telemetry_header() {
  return telemetry_header("get-log telemetry controller-initiated (08h), header");
}

Result<TelemetryLog> LibnvmeDevice::read_telemetry_log(unsigned data_area) {
  const char* command = "get-log telemetry controller-initiated (08h)";
  auto before = telemetry_header(command);
  if (!before) return before.error();
  TelemetryLog log;
  log.header = *before;
  log.data_area = std::clamp(data_area, 1u, kTelemetryMaxDataArea);
  log.bytes.resize(static_cast<std::size_t>(before->bytes_through(log.data_area)));
  // Offsets step by the chunk, a multiple of the 512-byte block.
  static_assert(kPelReadChunkBytes % kTelemetryBlockBytes == 0);
  for (std::size_t offset = 0; offset < log.bytes.size(); offset += kPelReadChunkBytes) {
    const std::size_t n = std::min(kPelReadChunkBytes, log.bytes.size() - offset);
    auto chunk = std::span(log.bytes).subspan(offset, n);
    if (auto o = get_log_at(kTelemetryControllerLogId, NVME_LOG_LSP_NONE, offset, chunk, NVME_NSID_NONE); o.rc != 0) {
      return failed(fmt::format("{} at offset {}", command, offset), o);
    }
  }
  // The first chunk holds the header as it was when the data was read; the
  // last word on it is a header read after all of it.
  auto after = telemetry_header(command);
  if (!after) return after.error();
  auto first = decode_telemetry_header(log.bytes);
  if (!first) return Error{ErrorReason::decode, fmt::format("{}: {}: {}", name_, command, first.error().message)};
  for (const TelemetryHeader* h : {&*first, &*after}) {
    if (h->controller_generation != before->controller_generation || h->data_available() != before->data_available()) {
      return Error{ErrorReason::busy,
                   fmt::format("{}: {}: the drive replaced its data during the read (generation {} -> {})", name_,
                               command, before->controller_generation, h->controller_generation)};
    }
  }
  return log;
}

std::optional<Error> LibnvmeDevice::device_self_test(std::uint8_t stc, std::string_view command) {
  if (auto refused = require_capability(Capability::self_test, command)) return refused;
  std::uint32_t result = 0;
  nvme_dev_self_test_args args{};
  args.result = &result;
  args.args_size = sizeof(args);
  args.fd = fd_;
  args.timeout = timeout_ms_;
  args.nsid = NVME_NSID_ALL;
  args.stc = static_cast<nvme_dst_stc>(stc);
  if (auto o = Outcome::of(nvme_dev_self_test(&args)); o.rc != 0) {
    Error e = failed(command, o);
    if (o.rc > 0 &&
        nvme_status_code(o.rc) == ((NVME_SCT_CMD_SPECIFIC << NVME_SCT_SHIFT) | NVME_SC_SELF_TEST_IN_PROGRESS)) {
      e.reason = ErrorReason::busy;
    } else if (is_unsupported_status(o.rc)) {
      e.reason = ErrorReason::unsupported;
    }
    return e;
  }
  return std::nullopt;
}

std::optional<Error> LibnvmeDevice::start_self_test(SelfTestKind kind) {
  const bool extended = kind == SelfTestKind::extended_test;
  return device_self_test(static_cast<std::uint8_t>(kind), extended ? "device self-test (14h), extended (STC 2h)"
                                                                    : "device self-test (14h), short (STC 1h)");
}

std::optional<Error> LibnvmeDevice::abort_self_test() {
  return device_self_test(NVME_DST_STC_ABORT, "device self-test (14h), abort (STC Fh)");
}

Result<std::optional<PcieLink>> LibnvmeDevice::read_pcie_link() {
  return nvmond::read_pcie_link(sysfs_class_nvme_, name_);
}

}  // namespace nvmond
