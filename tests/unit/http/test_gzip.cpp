// Accept-Encoding negotiation and gzip output that zlib reads back.
#include <gtest/gtest.h>

#include <zlib.h>

#include <string>

#include "http/gzip.hpp"

namespace nvmond::http {
namespace {

std::string gunzip(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
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

}  // namespace
}  // namespace nvmond::http
