#include "sim/valid_data_map.hpp"

#include <algorithm>
#include <cmath>

namespace nvmond {

ValidDataMap::ValidDataMap(std::uint64_t capacity_bytes)
    : capacity_(std::max<std::uint64_t>(capacity_bytes, 1)),
      chunk_bytes_((capacity_ + kChunks - 1) / kChunks),
      valid_((capacity_ + chunk_bytes_ - 1) / chunk_bytes_, 0.0) {}

std::size_t ValidDataMap::chunk_of(std::uint64_t offset) const {
  return std::min<std::size_t>(offset / chunk_bytes_, valid_.size() - 1);
}

LbaRange ValidDataMap::chunk(std::size_t i) const {
  const std::uint64_t lo = i * chunk_bytes_;
  return {lo, std::min(capacity_, lo + chunk_bytes_)};
}

double ValidDataMap::share(std::size_t i) const { return 1.0 - (1.0 - valid_[i]) * unapplied_; }

void ValidDataMap::settle() {
  if (unapplied_ == 1.0) return;
  for (double& v : valid_) v = 1.0 - (1.0 - v) * unapplied_;
  unapplied_ = 1.0;
  recount();
}

void ValidDataMap::cover(std::size_t i, double covered) {
  const double before = valid_[i];
  valid_[i] = std::min(1.0, before + (1.0 - before) * std::clamp(covered, 0.0, 1.0));
  valid_bytes_ += (valid_[i] - before) * static_cast<double>(chunk(i).bytes());
}

void ValidDataMap::close_stream() {
  if (!streaming_) return;
  streaming_ = false;
  if (stream_.bytes() == 0) return;
  const std::size_t i = chunk_of(stream_.lo);
  cover(i, static_cast<double>(stream_.bytes()) / static_cast<double>(chunk(i).bytes()));
}

void ValidDataMap::write_extent(std::uint64_t offset, std::uint64_t bytes) {
  if (offset >= capacity_ || bytes == 0) return;
  settle();
  const std::uint64_t end = offset + std::min(bytes, capacity_ - offset);
  if (!streaming_ || offset != stream_.hi) {
    close_stream();
    streaming_ = true;
    stream_ = {offset, offset};
  }
  stream_.hi = end;
  // Every chunk the stream has left is settled; only the part of the chunk
  // it is in stays open.
  while (chunk_of(stream_.lo) != chunk_of(stream_.hi) || stream_.hi == capacity_) {
    const std::size_t i = chunk_of(stream_.lo);
    const LbaRange c = chunk(i);
    const std::uint64_t upto = std::min(c.hi, stream_.hi);
    cover(i, static_cast<double>(upto - stream_.lo) / static_cast<double>(c.bytes()));
    stream_.lo = upto;
    if (stream_.lo == capacity_) break;
  }
}

void ValidDataMap::write_spread(LbaRange range, double bytes) {
  range.hi = std::min(range.hi, capacity_);
  if (range.bytes() == 0 || bytes <= 0) return;
  close_stream();
  const double unwritten = std::exp(-bytes / static_cast<double>(range.bytes()));
  if (range.lo == 0 && range.hi == capacity_) {
    // Every chunk alike: applied when a chunk is next looked at one by one,
    // so that a steady random workload costs no walk over the map.
    unapplied_ *= unwritten;
    return;
  }
  settle();
  const double reached = 1.0 - unwritten;
  for (std::size_t i = chunk_of(range.lo); i < valid_.size(); ++i) {
    const LbaRange c = chunk(i);
    if (c.lo >= range.hi) break;
    const std::uint64_t overlap = std::min(c.hi, range.hi) - std::max(c.lo, range.lo);
    cover(i, reached * static_cast<double>(overlap) / static_cast<double>(c.bytes()));
  }
}

void ValidDataMap::deallocate(LbaRange range) {
  range.hi = std::min(range.hi, capacity_);
  if (range.bytes() == 0) return;
  close_stream();
  settle();
  for (std::size_t i = chunk_of(range.lo); i < valid_.size(); ++i) {
    const LbaRange c = chunk(i);
    if (c.lo >= range.hi) break;
    const std::uint64_t overlap = std::min(c.hi, range.hi) - std::max(c.lo, range.lo);
    const double before = valid_[i];
    valid_[i] = before * (1.0 - static_cast<double>(overlap) / static_cast<double>(c.bytes()));
    valid_bytes_ += (valid_[i] - before) * static_cast<double>(c.bytes());
  }
}

void ValidDataMap::clear() {
  streaming_ = false;
  unapplied_ = 1.0;
  std::fill(valid_.begin(), valid_.end(), 0.0);
  valid_bytes_ = 0;
}

void ValidDataMap::fill() {
  streaming_ = false;
  unapplied_ = 1.0;
  std::fill(valid_.begin(), valid_.end(), 1.0);
  valid_bytes_ = static_cast<double>(capacity_);
}

double ValidDataMap::valid_bytes() const {
  const double capacity = static_cast<double>(capacity_);
  double v = capacity - (capacity - valid_bytes_) * unapplied_;
  if (streaming_) v += (1.0 - valid_[chunk_of(stream_.lo)]) * static_cast<double>(stream_.bytes());
  return v;
}

double ValidDataMap::valid_share(LbaRange range) const {
  range.hi = std::min(range.hi, capacity_);
  if (range.bytes() == 0) return 0;
  double v = 0;
  for (std::size_t i = chunk_of(range.lo); i < valid_.size(); ++i) {
    const LbaRange c = chunk(i);
    if (c.lo >= range.hi) break;
    const std::uint64_t overlap = std::min(c.hi, range.hi) - std::max(c.lo, range.lo);
    v += share(i) * static_cast<double>(overlap);
    if (streaming_ && i == chunk_of(stream_.lo)) {
      const std::uint64_t lo = std::max(stream_.lo, range.lo), hi = std::min(stream_.hi, range.hi);
      if (hi > lo) v += (1.0 - valid_[i]) * static_cast<double>(hi - lo);
    }
  }
  return v / static_cast<double>(range.bytes());
}

std::size_t ValidDataMap::memory_bytes() const { return sizeof(*this) + valid_.capacity() * sizeof(double); }

std::vector<std::pair<std::size_t, double>> ValidDataMap::runs() const {
  std::vector<std::pair<std::size_t, double>> out;
  for (std::size_t i = 0; i < valid_.size(); ++i) {
    const double v = share(i);
    if (!out.empty() && out.back().second == v) ++out.back().first;
    else out.emplace_back(1, v);
  }
  return out;
}

std::optional<LbaRange> ValidDataMap::open_stream() const {
  if (!streaming_) return std::nullopt;
  return stream_;
}

bool ValidDataMap::restore(const std::vector<std::pair<std::size_t, double>>& runs, std::optional<LbaRange> stream) {
  std::vector<double> v;
  v.reserve(valid_.size());
  for (const auto& [count, share] : runs) {
    if (!(share >= 0.0 && share <= 1.0) || count > valid_.size() - v.size()) return false;
    v.insert(v.end(), count, share);
  }
  if (v.size() != valid_.size()) return false;
  if (stream && (stream->hi < stream->lo || stream->hi > capacity_ || chunk_of(stream->lo) != chunk_of(stream->hi))) {
    return false;
  }
  valid_ = std::move(v);
  unapplied_ = 1.0;
  streaming_ = stream.has_value();
  if (stream) stream_ = *stream;
  recount();
  return true;
}

void ValidDataMap::recount() {
  valid_bytes_ = 0;
  for (std::size_t i = 0; i < valid_.size(); ++i) valid_bytes_ += valid_[i] * static_cast<double>(chunk(i).bytes());
}

}  // namespace nvmond
