#include "schedule/drive_claims.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <string_view>

namespace nvmond {

namespace {

// "an extended", "a short": the holder reads as a sentence whatever the kind.
const char* article_for(std::string_view word) {
  return !word.empty() && std::string_view("aeiou").find(word.front()) != std::string_view::npos ? "an" : "a";
}

}  // namespace

std::string holder_text(const DriveUse& use) {
  switch (use.kind) {
    case DriveUse::Kind::self_test: {
      const std::string since = use.since ? fmt::format("started at {:%Y-%m-%dT%H:%M:%SZ}",
                                                        fmt::gmtime(std::chrono::system_clock::to_time_t(*use.since)))
                                          : std::string("seen running in its self-test log");
      return fmt::format("{} {} self-test ({})", article_for(use.who), use.who, since);
    }
    case DriveUse::Kind::job: return "job " + use.who;
    case DriveUse::Kind::run: break;
  }
  return "run " + use.who;
}

std::string describe_use(const std::string& serial, const DriveUse& use) {
  if (use.kind == DriveUse::Kind::self_test) return fmt::format("drive {} is running {}", serial, holder_text(use));
  return fmt::format("drive {} is in use by {}", serial, holder_text(use));
}

DriveClaim::DriveClaim(DriveClaim&& other) noexcept
    : table_(std::move(other.table_)), serial_(std::move(other.serial_)), token_(other.token_) {
  other.token_ = 0;
}

DriveClaim& DriveClaim::operator=(DriveClaim&& other) noexcept {
  if (this != &other) {
    release();
    table_ = std::move(other.table_);
    serial_ = std::move(other.serial_);
    token_ = other.token_;
    other.token_ = 0;
  }
  return *this;
}

void DriveClaim::release() {
  if (token_ == 0) return;
  if (auto table = table_.lock()) {
    std::lock_guard lock(table->mu);
    auto it = table->by_serial.find(serial_);
    if (it != table->by_serial.end() && it->second.first == token_) table->by_serial.erase(it);
  }
  token_ = 0;
}

void DriveClaim::rename(DriveUse use) {
  if (token_ == 0) return;
  if (auto table = table_.lock()) {
    std::lock_guard lock(table->mu);
    auto it = table->by_serial.find(serial_);
    if (it != table->by_serial.end() && it->second.first == token_) it->second.second = std::move(use);
  }
}

DriveClaims::DriveClaims() : table_(std::make_shared<DriveClaim::Table>()) {}

Result<DriveClaim> DriveClaims::claim(const std::string& serial, DriveUse use) {
  std::lock_guard lock(table_->mu);
  if (auto it = table_->by_serial.find(serial); it != table_->by_serial.end()) {
    return Error{ErrorReason::busy, describe_use(serial, it->second.second)};
  }
  const std::uint64_t token = table_->next++;
  table_->by_serial.emplace(serial, std::make_pair(token, std::move(use)));
  return DriveClaim(table_, serial, token);
}

std::optional<DriveUse> DriveClaims::holder(const std::string& serial) const {
  std::lock_guard lock(table_->mu);
  auto it = table_->by_serial.find(serial);
  if (it == table_->by_serial.end()) return std::nullopt;
  return it->second.second;
}

}  // namespace nvmond
