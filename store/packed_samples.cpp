#include "store/packed_samples.hpp"

#include <cstdint>

#include "core/clock.hpp"

namespace nvmond {
namespace {

template <typename U>
void put_varint(std::string& out, U v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(static_cast<unsigned char>(v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

template <typename U>
U get_varint(const char*& p) {
  U v = 0;
  for (unsigned shift = 0;; shift += 7) {
    const auto b = static_cast<unsigned char>(*p++);
    v |= static_cast<U>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
}

// The difference, wrapping, with its sign moved to the lowest bit.
template <typename U>
void put_delta(std::string& out, U value, U previous) {
  const U d = static_cast<U>(value - previous);
  const U sign = (d >> (sizeof(U) * 8 - 1)) ? static_cast<U>(~U{0}) : U{0};
  put_varint<U>(out, static_cast<U>(static_cast<U>(d << 1) ^ sign));
}

template <typename U>
U get_delta(const char*& p, U previous) {
  const U z = get_varint<U>(p);
  const U sign = (z & 1) ? static_cast<U>(~U{0}) : U{0};
  return static_cast<U>(previous + static_cast<U>((z >> 1) ^ sign));
}

std::uint64_t bits(std::int64_t v) { return static_cast<std::uint64_t>(v); }

}  // namespace

void PackedSamples::push_back(const SampleRecord& s) {
  put_delta<std::uint64_t>(bytes_, bits(to_unix_ns(s.time)), bits(to_unix_ns(last_.time)));
  put_delta<std::uint64_t>(bytes_, bits(s.segment), bits(last_.segment));
  put_delta<u128>(bytes_, s.data_units_written, last_.data_units_written);
  put_delta<u128>(bytes_, s.data_units_read, last_.data_units_read);
  put_delta<u128>(bytes_, s.power_on_hours, last_.power_on_hours);
  put_delta<std::uint64_t>(bytes_, s.percentage_used, last_.percentage_used);
  put_delta<std::uint64_t>(bytes_, s.composite_temperature_k, last_.composite_temperature_k);
  bytes_.push_back(s.media_bytes_written ? 1 : 0);
  if (s.media_bytes_written) {
    put_delta<u128>(bytes_, *s.media_bytes_written, media_);
    media_ = *s.media_bytes_written;
  }
  last_ = s;
  ++count_;
}

PackedSamples::Iterator::Iterator(const char* at, const char* end) : at_(at), end_(end) {
  if (at_ != end_) decode();
}

PackedSamples::Iterator& PackedSamples::Iterator::operator++() {
  at_ = next_;
  if (at_ != end_) decode();
  return *this;
}

void PackedSamples::Iterator::decode() {
  const char* p = at_;
  SampleRecord& s = current_;
  s.time = from_unix_ns(static_cast<std::int64_t>(get_delta<std::uint64_t>(p, bits(to_unix_ns(s.time)))));
  s.segment = static_cast<std::int64_t>(get_delta<std::uint64_t>(p, bits(s.segment)));
  s.data_units_written = get_delta<u128>(p, s.data_units_written);
  s.data_units_read = get_delta<u128>(p, s.data_units_read);
  s.power_on_hours = get_delta<u128>(p, s.power_on_hours);
  s.percentage_used = static_cast<std::uint8_t>(get_delta<std::uint64_t>(p, s.percentage_used));
  s.composite_temperature_k = static_cast<std::uint16_t>(get_delta<std::uint64_t>(p, s.composite_temperature_k));
  if (*p++) {
    media_ = get_delta<u128>(p, media_);
    s.media_bytes_written = media_;
  } else {
    s.media_bytes_written.reset();
  }
  next_ = p;
}

}  // namespace nvmond
