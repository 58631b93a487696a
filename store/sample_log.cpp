#include "store/sample_log.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string>

namespace nvmond {

using sqlite::Stmt;

SampleRecord read_sample(const Stmt& st, int first) {
  SampleRecord s;
  s.time = from_unix_ns(st.int64(first));
  s.segment = st.int64(first + 1);
  s.data_units_written = st.u128_at(first + 2);
  s.data_units_read = st.u128_at(first + 3);
  s.power_on_hours = st.u128_at(first + 4);
  s.percentage_used = static_cast<std::uint8_t>(st.int64(first + 5));
  s.composite_temperature_k = static_cast<std::uint16_t>(st.int64(first + 6));
  if (!st.is_null(first + 7)) s.media_bytes_written = st.u128_at(first + 7);
  return s;
}

void bind_sample(Stmt& st, int first, const SampleRecord& s) {
  st.bind(first, to_unix_ns(s.time));
  st.bind(first + 1, s.segment);
  st.bind_u128(first + 2, s.data_units_written);
  st.bind_u128(first + 3, s.data_units_read);
  st.bind_u128(first + 4, s.power_on_hours);
  st.bind(first + 5, std::int64_t{s.percentage_used});
  st.bind(first + 6, std::int64_t{s.composite_temperature_k});
  if (s.media_bytes_written) st.bind_u128(first + 7, *s.media_bytes_written);
  else st.bind_null(first + 7);
}

void SampleLog::clear() {
  by_drive_.clear();
  rows_ = 0;
}

void SampleLog::forget() {
  clear();
  folded_seq_.reset();
  last_seq_ = 0;
}

StoreStatus SampleLog::sync(std::string_view context) {
  {
    Stmt st(stmts_, "SELECT seq FROM sample_log_folded WHERE id = 1");
    if (!st.ok() || st.step() != SQLITE_ROW) return st.error(context);
    const std::int64_t folded = st.int64(0);
    // A fold moves the whole log: nothing held is in it any more.
    if (folded_seq_ != folded) {
      clear();
      folded_seq_ = folded;
      last_seq_ = std::max(last_seq_, folded);
    }
  }
  static const std::string kNewRows =
      fmt::format("SELECT seq, drive_id, {} FROM sample_log WHERE seq > ?1 ORDER BY seq", kSampleColumns);
  Stmt st(stmts_, kNewRows);
  if (!st.ok()) return st.error(context);
  st.bind(1, last_seq_);
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    last_seq_ = st.int64(0);
    by_drive_[st.int64(1)].push_back(read_sample(st, 2));
    ++rows_;
  }
  if (rc != SQLITE_DONE) return st.error(context);
  return std::monostate{};
}

const PackedSamples& SampleLog::of(std::int64_t drive_id) const {
  static const PackedSamples kNone;
  auto it = by_drive_.find(drive_id);
  if (it == by_drive_.end()) return kNone;
  return it->second;
}

std::optional<WallTime> SampleLog::newest() const {
  std::optional<WallTime> out;
  for (const auto& [id, rows] : by_drive_) {
    if (!rows.empty()) out = std::max(out.value_or(rows.back().time), rows.back().time);
  }
  return out;
}

StoreStatus SampleLog::append(std::int64_t drive_id, const SampleRecord& s, std::string_view context) {
  static const std::string kInsert = fmt::format(
      "INSERT INTO sample_log(seq, drive_id, {}) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", kSampleColumns);
  Stmt ins(stmts_, kInsert);
  if (!ins.ok()) return ins.error(context);
  const std::int64_t seq = last_seq_ + 1;
  ins.bind(1, seq);
  ins.bind(2, drive_id);
  bind_sample(ins, 3, s);
  if (ins.step() != SQLITE_DONE) return ins.error(fmt::format("{}: logging sample", context));
  last_seq_ = seq;
  by_drive_[drive_id].push_back(s);
  ++rows_;
  return std::monostate{};
}

Result<std::int64_t> SampleLog::fold(std::string_view context) {
  if (rows_ == 0) return std::int64_t{0};
  const std::string doing = fmt::format("{}: folding {} logged samples into the history", context, rows_);
  // Arrival order: no sort (a sort of this size would spill to a temporary file).
  const std::string move = fmt::format(
      "INSERT OR REPLACE INTO sample_history(drive_id, {0}) SELECT drive_id, {0} FROM sample_log ORDER BY seq",
      kSampleColumns);
  if (auto r = sqlite::exec(stmts_.db(), move.c_str(), doing); !r) return r.error();
  {
    Stmt mark(stmts_, "UPDATE sample_log_folded SET seq = ?1 WHERE id = 1");
    if (!mark.ok()) return mark.error(doing);
    mark.bind(1, last_seq_);
    if (mark.step() != SQLITE_DONE) return mark.error(doing);
  }
  // No WHERE: SQLite frees the table's pages without rewriting them.
  if (auto r = sqlite::exec(stmts_.db(), "DELETE FROM sample_log", doing); !r) return r.error();
  const auto folded = static_cast<std::int64_t>(rows_);
  clear();
  folded_seq_ = last_seq_;
  return folded;
}

}  // namespace nvmond
