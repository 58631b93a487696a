// Basic-auth header decoding and bcrypt verification through libxcrypt.
#include <gtest/gtest.h>

#include <crypt.h>

#include <cstring>
#include <memory>
#include <string>

#include "daemon/http/basic_auth.hpp"

namespace nvmond::http {
namespace {

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

TEST(Authenticator, RemembersOnlyCredentialsThatVerified) {
  Authenticator a({{"prometheus", bcrypt("right")}});
  EXPECT_TRUE(a.enabled());
  Credentials good{"prometheus", "right"}, bad{"prometheus", "wrong"}, stranger{"mallory", "right"};
  EXPECT_FALSE(a.known_good(good));
  EXPECT_FALSE(a.verify(bad));
  EXPECT_FALSE(a.known_good(bad));
  EXPECT_FALSE(a.verify(stranger));
  EXPECT_TRUE(a.verify(good));
  EXPECT_TRUE(a.known_good(good));
  EXPECT_FALSE(a.known_good(stranger));
}

TEST(Authenticator, WithoutUsersIsDisabled) { EXPECT_FALSE(Authenticator({}).enabled()); }

}  // namespace
}  // namespace nvmond::http
