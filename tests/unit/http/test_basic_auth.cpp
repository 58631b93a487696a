// Basic-auth header decoding and bcrypt verification through libxcrypt.
#include <gtest/gtest.h>

#include <crypt.h>

#include <cstring>
#include <memory>
#include <string>

#include "http/basic_auth.hpp"

namespace nvmond::http {
namespace {
namespace NVMOND_TEST_UNIT {

// A fresh bcrypt hash of `password` (cost 4: the test's speed, not security).
std::string bcrypt(const std::string& password, const char* prefix = "$2b$") {
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* setting = crypt_gensalt_rn(prefix, 4, nullptr, 0, data->setting, sizeof(data->setting));
  if (setting == nullptr) return "";
  std::string s = setting;
  const char* h = crypt_rn(password.c_str(), s.c_str(), data.get(), sizeof(crypt_data));
  return h ? h : "";
}

TEST(BasicAuthHeader, DecodesUserAndPassword) {
  auto c = parse_basic_authorization("Basic cHJvbWV0aGV1czpzM2NyZXQ6eA==");  // prometheus:s3cret:x
  ASSERT_TRUE(c);
  EXPECT_EQ(c->user, "prometheus");
  EXPECT_EQ(c->password, "s3cret:x");  // only the first colon separates
  EXPECT_TRUE(parse_basic_authorization("basic   cHJvbWV0aGV1czpz"));
}

TEST(BasicAuthHeader, RejectsOtherSchemesAndBrokenBase64) {
  EXPECT_FALSE(parse_basic_authorization("Bearer abc"));
  EXPECT_FALSE(parse_basic_authorization("Basic"));
  EXPECT_FALSE(parse_basic_authorization("Basic !!!!"));
  EXPECT_FALSE(parse_basic_authorization("Basic bm9jb2xvbg=="));  // "nocolon"
}

TEST(Bcrypt, VerifiesTheRightPasswordOnly) {
  auto h = bcrypt("s3cret");
  ASSERT_EQ(h.substr(0, 7), "$2b$04$");
  EXPECT_TRUE(bcrypt_verify("s3cret", h));
  EXPECT_FALSE(bcrypt_verify("s3cret ", h));
  EXPECT_FALSE(bcrypt_verify("", h));
}

TEST(Bcrypt, AcceptsTheHtpasswdSpelling2y) {
  auto h = bcrypt("pw");
  h[2] = 'y';  // $2y$ (htpasswd -B) and $2b$ are the same algorithm
  EXPECT_TRUE(bcrypt_verify("pw", h));
}

TEST(Bcrypt, NeverFallsBackToOtherCryptMethods) {
  // crypt("x", "ab") is DES and would "verify" against its own output.
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  std::string des = crypt_rn("x", "ab", data.get(), sizeof(crypt_data));
  EXPECT_FALSE(bcrypt_verify("x", des));
}

TEST(Authenticator, RemembersTheOutcomeOfEachCheckedCredential) {
  Authenticator a({{"prometheus", bcrypt("right")}});
  EXPECT_TRUE(a.enabled());
  Credentials good{"prometheus", "right"}, bad{"prometheus", "wrong"}, stranger{"mallory", "right"};
  EXPECT_EQ(a.remembered(good), std::nullopt);
  EXPECT_FALSE(a.verify(bad));
  EXPECT_EQ(a.remembered(bad), false);
  EXPECT_FALSE(a.verify(stranger));
  EXPECT_EQ(a.remembered(stranger), false);
  EXPECT_EQ(a.remembered(good), std::nullopt);
  EXPECT_TRUE(a.verify(good));
  EXPECT_EQ(a.remembered(good), true);
  EXPECT_EQ(a.remembered(Credentials{"prometheus", "right "}), std::nullopt);
}

// crypt(3) reads a C string: "right\0anything" would verify as "right".
TEST(Bcrypt, APasswordWithANulIsNeverVerifiedTruncated) {
  auto h = bcrypt("right");
  EXPECT_FALSE(bcrypt_verify(std::string("right\0anything", 14), h));
  EXPECT_FALSE(bcrypt_verify(std::string("right\0", 6), h));
  EXPECT_TRUE(bcrypt_verify("right", h));
}

TEST(BasicAuthHeader, RefusesANulInTheUserOrPassword) {
  EXPECT_FALSE(parse_basic_authorization("Basic cHJvbWV0aGV1czpyaWdodABhbnl0aGluZw=="));  // prometheus:right\0anything
  EXPECT_FALSE(parse_basic_authorization("Basic cHJvbQBldGhldXM6cmlnaHQ="));              // prom\0etheus:right
}

TEST(Authenticator, APasswordWithANulIsRejected) {
  Authenticator a({{"prometheus", bcrypt("right")}});
  EXPECT_FALSE(a.verify(Credentials{"prometheus", std::string("right\0x", 7)}));
  EXPECT_TRUE(a.verify(Credentials{"prometheus", "right"}));
}

// A guesser's stream of new wrong passwords must not push the scraper's
// right one out of memory: then every scrape would wait for a bcrypt.
TEST(Authenticator, WrongPasswordsNeverPushOutTheRightOne) {
  Authenticator a({{"prometheus", bcrypt("right")}}, AuthMemory{.accepted = 4, .rejected = 8});
  Credentials good{"prometheus", "right"};
  ASSERT_TRUE(a.verify(good));
  for (int i = 0; i < 200; ++i) EXPECT_FALSE(a.verify(Credentials{"prometheus", "guess" + std::to_string(i)}));
  EXPECT_EQ(a.remembered(good), true);
  // Rejections are remembered too, within their own bound: the newest ones.
  EXPECT_EQ(a.remembered(Credentials{"prometheus", "guess199"}), false);
  EXPECT_EQ(a.remembered(Credentials{"prometheus", "guess0"}), std::nullopt);
}

// The same scenario at the default sizes: the old single 64-entry memory
// was flushed by 64 guesses.
TEST(Authenticator, RemembersTheRightPasswordThroughHundredsOfGuessesByDefault) {
  Authenticator a({{"prometheus", bcrypt("right")}});
  Credentials good{"prometheus", "right"};
  ASSERT_TRUE(a.verify(good));
  for (int i = 0; i < 300; ++i) a.verify(Credentials{"mallory", "guess" + std::to_string(i)});
  EXPECT_EQ(a.remembered(good), true);
}

TEST(Authenticator, WithoutUsersIsDisabled) { EXPECT_FALSE(Authenticator({}).enabled()); }

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::http
