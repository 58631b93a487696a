// Accept-Encoding negotiation and gzip output that zlib reads back.
#include <gtest/gtest.h>

#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "http/gzip.hpp"

namespace nvmond::http {
namespace {
namespace NVMOND_TEST_UNIT {

std::string gunzip(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  // One gzip member and nothing after it: a reader that stops at the first
  // member's end must get the whole body.
  EXPECT_EQ(zs.avail_in, 0u);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

TEST(AcceptsGzip, FollowsCodingsAndQValues) {
  for (const char* header : {"gzip", "identity, GZIP;q=0.5", "br, *", "x-gzip"}) {
    EXPECT_TRUE(accepts_gzip(header)) << header;
  }
  // "gzip;q=0, *": an explicit refusal wins over *.
  for (const char* header : {"", "identity", "gzip;q=0", "gzip;q=0, *", "*;q=0", "gzipper"}) {
    EXPECT_FALSE(accepts_gzip(header)) << header;
  }
}

TEST(GzipCompress, RoundTripsAnExposition) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "nvme_temperature_celsius{serial=\"SN" + std::to_string(i) + "\"} 42\n";
  auto z = *gzip_compress(text);
  EXPECT_EQ(static_cast<unsigned char>(z[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(z[1]), 0x8b);
  EXPECT_LT(z.size() * 5, text.size());
  EXPECT_EQ(gunzip(z), text);
  EXPECT_EQ(gunzip(*gzip_compress("")), "");
}

TEST(GzipCompress, WhatZlibRefusesIsNoResultNotAnException) {
  // A level zlib does not know fails deflateInit2 as exhausted memory does.
  EXPECT_EQ(gzip_compress("nvme_temperature_celsius 42\n", 42), std::nullopt);
}

// An exposition-like segment: one family's lines, `n` series.
std::string family(const std::string& name, int n, int value) {
  std::string s = "# HELP " + name + " help\n# TYPE " + name + " gauge\n";
  for (int i = 0; i < n; ++i) {
    s += name + "{serial=\"SN" + std::to_string(i) + "\"} " + std::to_string(value + i) + "\n";
  }
  return s;
}

struct Body {
  std::string text;
  std::vector<std::size_t> ends;
};

Body join(const std::vector<std::string>& segments) {
  Body b;
  for (const auto& s : segments) {
    b.text += s;
    b.ends.push_back(b.text.size());
  }
  return b;
}

// Every cut is a segment, whatever the size.
constexpr SegmentedGzip::Sizes kEveryCut{0, 0};

TEST(SegmentedGzip, CompressesOnlyTheSegmentsThatChanged) {
  SegmentedGzip gz(kEveryCut);
  std::vector<std::string> segs{family("a", 50, 1), family("b", 50, 2), family("c", 50, 3)};
  auto b = join(segs);
  EXPECT_EQ(gunzip(*gz.compress(b.text, b.ends)), b.text);
  EXPECT_EQ(gz.last_compressed(), 3u);  // the last end is the body's: a fourth, empty segment is cached as it is
  segs[1] = family("b", 50, 7);
  b = join(segs);
  EXPECT_EQ(gunzip(*gz.compress(b.text, b.ends)), b.text);
  EXPECT_EQ(gz.last_compressed(), 1u);
  EXPECT_EQ(gunzip(*gz.compress(b.text, b.ends)), b.text);
  EXPECT_EQ(gz.last_compressed(), 0u);
  // A family that appears shifts the rest: they are compressed again.
  segs.insert(segs.begin(), family("0", 10, 0));
  b = join(segs);
  EXPECT_EQ(gunzip(*gz.compress(b.text, b.ends)), b.text);
  EXPECT_EQ(gz.last_compressed(), 4u);
}

// A part with a fingerprint is known by it: a scrape neither keeps nor
// compares the text of a family whose fingerprint did not change. (Here the
// same fingerprint with other bytes breaks that promise on purpose, to show
// the text is not read.)
TEST(SegmentedGzip, KnowsAPartByItsFingerprintWithoutReadingIt) {
  SegmentedGzip gz(kEveryCut);
  const std::string a = family("a", 50, 1), b = family("b", 50, 2), c = family("c", 50, 3);
  std::vector<SegmentedGzip::Part> parts{{a, 1}, {b, 2}, {c, 3}};
  EXPECT_EQ(gunzip(*gz.compress(parts)), a + b + c);
  EXPECT_EQ(gz.last_compressed(), 3u);
  std::string b_same_size = b;  // the last value's last digit changed
  b_same_size[b.size() - 2] = b[b.size() - 2] == '9' ? '8' : '9';
  parts[1].text = b_same_size;  // fingerprint 2 still: the cached segment stands
  EXPECT_EQ(gunzip(*gz.compress(parts)), a + b + c);
  EXPECT_EQ(gz.last_compressed(), 0u);
  parts[1].fingerprint = 4;  // a new fingerprint: compressed again
  EXPECT_EQ(gunzip(*gz.compress(parts)), a + b_same_size + c);
  EXPECT_EQ(gz.last_compressed(), 1u);
  // A part without one is compared by its text, joined or not.
  const std::string own = family("own", 3, 1), own_changed = family("own", 3, 2);
  std::vector<SegmentedGzip::Part> mixed{{own}, {a, 1}, {c, 3}};
  SegmentedGzip joined(SegmentedGzip::Sizes{0, a.size() + own.size()});
  EXPECT_EQ(gunzip(*joined.compress(mixed)), own + a + c);
  EXPECT_EQ(gunzip(*joined.compress(mixed)), own + a + c);
  EXPECT_EQ(joined.last_compressed(), 0u);
  mixed[0].text = own_changed;
  EXPECT_EQ(gunzip(*joined.compress(mixed)), own_changed + a + c);
  EXPECT_EQ(joined.last_compressed(), 1u);
}

TEST(SegmentedGzip, ChangingRandomSegmentsAlwaysGunzipsToTheBody) {
  std::mt19937 rng(7);
  SegmentedGzip gz(kEveryCut);
  std::vector<std::string> segs;
  for (int call = 0; call < 300; ++call) {
    // Change, add or drop a few segments, empty ones included.
    int edits = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int e = 0; e < edits; ++e) {
      int what = std::uniform_int_distribution<int>(0, 2)(rng);
      std::size_t at = segs.empty() ? 0 : std::uniform_int_distribution<std::size_t>(0, segs.size() - 1)(rng);
      int n = std::uniform_int_distribution<int>(0, 300)(rng);
      std::string seg = n == 0 ? std::string() : family("f" + std::to_string(at), n, static_cast<int>(rng() % 1000));
      if (what == 0 || segs.empty()) {
        segs.insert(segs.begin() + static_cast<std::ptrdiff_t>(std::min(at, segs.size())), seg);
      } else if (what == 1) {
        segs[at] = seg;
      } else {
        segs.erase(segs.begin() + static_cast<std::ptrdiff_t>(at));
      }
    }
    auto b = join(segs);
    // Bytes past the last end are a segment too.
    if (!b.ends.empty() && call % 3 == 0) b.ends.pop_back();
    auto z = gz.compress(b.text, b.ends);
    ASSERT_TRUE(z);
    ASSERT_EQ(gunzip(*z), b.text) << "call " << call;
  }
}

TEST(SegmentedGzip, CostsLittleRatioAgainstOneWholeStream) {
  std::vector<std::string> segs;
  // A family of a fleet: a series per drive, a few KiB and more. (Measured
  // on real expositions, cutting at families costs nothing: 64 simulated
  // drives' 652 KiB compress to 47 KB in segments, 50 KB whole.)
  for (int f = 0; f < 40; ++f) segs.push_back(family("nvme_family_" + std::to_string(f), 256, f));
  auto b = join(segs);
  SegmentedGzip gz(kEveryCut);
  auto seg = gz.compress(b.text, b.ends)->size();
  auto whole = gzip_compress(b.text)->size();
  EXPECT_LT(seg, whole * 5 / 4) << seg << " vs " << whole;
}

// The cache is held between scrapes, for every family of the exposition: it
// must hold what compression made of them, not room for their text.
TEST(SegmentedGzip, HoldsTheCompressedSegmentsAtTheirCompressedSize) {
  std::vector<std::string> segs;
  for (int f = 0; f < 40; ++f) segs.push_back(family("nvme_family_" + std::to_string(f), 256, f));
  std::vector<SegmentedGzip::Part> parts;
  std::size_t text = 0;
  for (std::size_t f = 0; f < segs.size(); ++f) {
    parts.push_back({segs[f], f + 1});  // fingerprinted, as the daemon's families are: no text kept
    text += segs[f].size();
  }
  SegmentedGzip gz(kEveryCut);
  const auto body = gz.compress(parts);
  ASSERT_TRUE(body);
  EXPECT_LT(gz.cached_bytes(), body->size() * 5 / 4) << "text " << text << ", gzip " << body->size();
}

TEST(SegmentedGzip, JoinsSmallSegmentsAndCompressesSmallBodiesWhole) {
  std::vector<std::string> segs;
  for (int f = 0; f < 40; ++f) segs.push_back(family("nvme_family_" + std::to_string(f), 4, f));
  auto b = join(segs);
  SegmentedGzip gz(SegmentedGzip::Sizes{0, 1024});
  EXPECT_EQ(gunzip(*gz.compress(b.text, b.ends)), b.text);
  EXPECT_LT(gz.last_compressed(), segs.size() / 3);
  SegmentedGzip whole(SegmentedGzip::Sizes{b.text.size() + 1, 0});
  EXPECT_EQ(*whole.compress(b.text, b.ends), *gzip_compress(b.text));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::http
