#include "pts/targets/device_target.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cstring>
#include <fstream>

#include "pts/run_header.hpp"
#include "pts/targets/purge.hpp"

namespace nvmond {

namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

Result<std::uint64_t> block_size(int fd, const std::string& path) {
  std::uint64_t size = 0;
  if (::ioctl(fd, BLKGETSIZE64, &size) != 0) {
    return Error{ErrorReason::io, fmt::format("{}: reading its size: {}", path, std::strerror(errno))};
  }
  return size;
}

// In 512-byte sectors, whatever the logical block size.
Result<std::uint64_t> block_size_from_sysfs(dev_t rdev, const std::string& path) {
  const std::string sectors = read_line(fmt::format("/sys/dev/block/{}:{}/size", major(rdev), minor(rdev)));
  if (sectors.empty() || sectors.find_first_not_of("0123456789") != std::string::npos) {
    return Error{ErrorReason::io, fmt::format("{}: no size in sysfs", path)};
  }
  return std::stoull(sectors) * 512;
}

// A block device's logical block size: from its descriptor when the guard
// opened it, else from sysfs; 0 when neither says.
std::uint32_t logical_block_bytes(int fd, bool opened, dev_t rdev) {
  if (opened) {
    int size = 0;
    if (::ioctl(fd, BLKSSZGET, &size) == 0 && size > 0) return static_cast<std::uint32_t>(size);
    return 0;
  }
  const std::string text =
      read_line(fmt::format("/sys/dev/block/{}:{}/queue/logical_block_size", major(rdev), minor(rdev)));
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<std::uint32_t>(std::stoul(text));
}

// Who the drive is and its limits, from its controller; nothing when the
// controller does not answer (the caller then names the target otherwise).
void identify_controller(DeviceReader& controller, TargetRecord& id) {
  auto info = controller.identify();
  if (!info) return;
  id.serial = info->serial;
  id.model = info->model;
  id.firmware = info->firmware;
  if (info->controller.wctemp_k) id.warning_temp_c = kelvin_to_celsius(info->controller.wctemp_k);
  if (info->controller.cctemp_k) id.critical_temp_c = kelvin_to_celsius(info->controller.cctemp_k);
}

}  // namespace

Result<std::unique_ptr<DeviceTarget>> DeviceTarget::open(const std::string& path, const SafetyGuard& guard,
                                                         const NamespaceOpener& open_namespace, EngineFactory engines) {
  std::unique_ptr<DeviceTarget> t(new DeviceTarget(path, guard, std::move(engines)));
  auto opened = guard.open_target(path, TargetAccess{true, true, 0});
  if (opened) {
    t->fd_ = std::move(opened->fd);
  } else {
    t->refusal_ = opened.error();
  }
  // A refused target is still named in the refusal, identified through an
  // O_PATH descriptor and sysfs only: the guard refused to open it, and
  // opening it here (a tty, a watchdog) would have the effects it avoided.
  UniqueFd probe;
  if (!t->fd_.valid()) probe = UniqueFd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  const int fd = t->fd_.valid() ? t->fd_.get() : probe.get();
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    if (t->refusal_) return *t->refusal_;
    return Error{ErrorReason::io, fmt::format("{}: {}", path, std::strerror(errno))};
  }
  if (open_namespace) t->nvme_ = open_namespace(path);
  TargetRecord& id = t->identity_;
  id.path = path;
  if (S_ISBLK(st.st_mode)) {
    auto size = t->fd_.valid() ? block_size(fd, path) : block_size_from_sysfs(st.st_rdev, path);
    if (!size) return t->refusal_ ? *t->refusal_ : size.error();
    id.capacity_bytes = *size;
    id.logical_block_bytes = logical_block_bytes(fd, t->fd_.valid(), st.st_rdev);
    const std::string name = path.substr(path.rfind('/') + 1);
    if (t->nvme_) {
      identify_controller(*t->nvme_->controller, id);
    } else if (name.rfind("loop", 0) == 0) {
      id.serial = "loop:" + read_line("/sys/block/" + name + "/loop/backing_file");
      id.model = "Linux loop device";
    } else {
      id.serial = read_line("/sys/block/" + name + "/device/serial");
      id.model = read_line("/sys/block/" + name + "/device/model");
    }
  } else if (S_ISREG(st.st_mode)) {
    id.capacity_bytes = static_cast<std::uint64_t>(st.st_size);
    if (t->nvme_) {
      identify_controller(*t->nvme_->controller, id);
    } else {
      id.serial = "file:" + path;
      id.model = "regular file";
    }
  } else {
    if (t->refusal_) return *t->refusal_;
    return Error{ErrorReason::unsupported_target, path + ": neither a block device nor a regular file"};
  }
  if (id.serial.empty()) id.serial = path;
  if (id.capacity_bytes == 0) return t->refusal_ ? *t->refusal_ : Error{ErrorReason::io, path + ": size 0"};
  return t;
}

Result<PurgeRecord> DeviceTarget::purge() {
  if (refusal_) return *refusal_;
  return purge_target(fd_.get(), path_, identity_.capacity_bytes, nvme_ ? &*nvme_ : nullptr);
}

std::optional<SmartRecord> DeviceTarget::health() {
  if (!nvme_) return std::nullopt;
  auto s = nvme_->controller->read_smart();
  if (!s) return std::nullopt;
  std::optional<OcpLatencyMonitorLog> monitor;
  if (auto lm = nvme_->controller->read_ocp_latency_monitor(); lm && *lm) monitor = **lm;
  return smart_record(now(), kelvin_to_celsius(s->composite_temperature_k), *s, monitor);
}

WriteCacheState DeviceTarget::write_cache() {
  if (!nvme_) return {std::nullopt, path_ + " is no NVMe namespace: its write cache cannot be read"};
  auto info = nvme_->controller->identify();
  if (!info) return {std::nullopt, "identify controller: " + info.error().message};
  if ((info->controller.vwc & 1u) == 0) return {false, "Identify Controller: no volatile write cache (VWC)"};
  auto enabled = nvme_->controller->read_volatile_write_cache();
  if (!enabled) return {std::nullopt, enabled.error().message};
  return {*enabled, std::string("Get Features volatile write cache (06h): ") + (*enabled ? "enabled" : "disabled")};
}

std::optional<Error> DeviceTarget::set_write_cache(bool enabled) {
  if (!nvme_) return Error{ErrorReason::unsupported, path_ + " is no NVMe namespace: its write cache cannot be set"};
  return nvme_->controller->set_volatile_write_cache(enabled);
}

void DeviceTarget::restart() {
  std::lock_guard lock(mu_);
  stopped_ = false;
}

void DeviceTarget::stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  if (running_) running_->stop();
  stopped_cv_.notify_all();
}

// The drive's idle time is real time: nothing of the host's to simulate.
std::optional<Error> DeviceTarget::idle(Duration d) {
  std::unique_lock lock(mu_);
  stopped_cv_.wait_for(lock, d, [this] { return stopped_; });
  return std::nullopt;
}

JobSpec element_job(const Element& e, const std::string& path, std::uint64_t range_bytes,
                    std::optional<std::uint64_t> max_bytes, const SequentialCursor& from) {
  JobSpec j;
  j.name = e.label;
  j.target = path;
  j.pattern = e.pattern;
  j.block_sizes = e.block_sizes;
  j.read_pct = e.read_pct;
  j.threads = e.threads;
  j.queue_depth = e.queue_depth;
  // Whole blocks: the planner shares them out between the threads, so every
  // one of them has a thread to write it.
  const std::uint64_t align = std::max<std::uint64_t>(4096, j.max_block_size());
  j.size = std::max(align * e.threads, range_bytes / align * align);
  j.runtime = e.duration;
  if (max_bytes) j.bytes = std::max<std::uint64_t>(*max_bytes, j.max_block_size());
  j.rate_bytes_per_second = e.rate_bytes_per_second;
  for (const auto& z : e.zones) j.zones.push_back(AccessZoneWeight{z.access_pct, z.range_pct});
  j.block_align = e.block_align;
  if (e.pattern == AccessPattern::sequential) {
    j.sequential_start = from;
    j.worker_bytes = e.thread_budgets;
  }
  return j;
}

Result<Measurement> DeviceTarget::run(const Element& e, std::uint64_t range_bytes,
                                      std::optional<std::uint64_t> max_bytes, const SequentialCursor& from) {
  if (refusal_) return *refusal_;
  JobRunner runner(element_job(e, path_, range_bytes, max_bytes, from), engines_, &guard_);
  runner.use_approved_target(fd_.get());
  {
    std::lock_guard lock(mu_);
    if (stopped_) {
      Measurement m;
      m.stopped = true;
      return m;
    }
    running_ = &runner;
  }
  const auto before = health();
  RunResult r = runner.run();
  const auto after = health();
  bool stopped = false;
  {
    std::lock_guard lock(mu_);
    running_ = nullptr;
    stopped = stopped_;
  }
  if (r.failure) return Error{r.failure->reason, r.failure->message};
  Measurement m;
  m.elapsed = r.elapsed;
  m.op = std::move(r.op);
  m.stopped = stopped;
  m.cursor = std::move(r.sequential_next);
  m.written_by_stream = std::move(r.sequential_written);
  for (const auto& h : {before, after}) {
    if (!h || !h->temperature_c) continue;
    m.temp_min_c = std::min(m.temp_min_c.value_or(*h->temperature_c), *h->temperature_c);
    m.temp_max_c = std::max(m.temp_max_c.value_or(*h->temperature_c), *h->temperature_c);
  }
  return m;
}

}  // namespace nvmond
