#pragma once
// A drive's logged samples in memory, packed: each field as the varint of
// its difference from the sample before (zigzag, so a counter that went
// backwards costs no more than one that went forwards). Polled every
// second, a sample packs into about 20 bytes instead of SampleRecord's 112:
// the sample log holds up to 256 samples of every drive in each of two
// connections, 14.7 MB at 256 drives unpacked.
//
// Read in order only, which is how the log is read: iterating decodes one
// sample after another; the newest is kept unpacked.
#include <cstddef>
#include <string>

#include "store/store.hpp"

namespace nvmond {

class PackedSamples {
 public:
  class Iterator {
   public:
    const SampleRecord& operator*() const { return current_; }
    const SampleRecord* operator->() const { return &current_; }
    Iterator& operator++();
    bool operator==(const Iterator& o) const { return at_ == o.at_; }

   private:
    friend class PackedSamples;
    Iterator(const char* at, const char* end);
    void decode();
    const char* at_;  // the next sample's first byte, or end
    const char* end_;
    const char* next_ = nullptr;  // past the current sample
    SampleRecord current_{};
    u128 media_ = 0;  // the last media_bytes_written seen
  };

  // Appends a sample (any values: the differences wrap).
  void push_back(const SampleRecord& s);
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  const SampleRecord& back() const { return last_; }
  Iterator begin() const { return Iterator(bytes_.data(), bytes_.data() + bytes_.size()); }
  Iterator end() const { return Iterator(bytes_.data() + bytes_.size(), bytes_.data() + bytes_.size()); }
  std::size_t packed_bytes() const { return bytes_.size(); }

 private:
  std::string bytes_;
  std::size_t count_ = 0;
  SampleRecord last_{};
  u128 media_ = 0;  // the last media_bytes_written pushed
};

}  // namespace nvmond
