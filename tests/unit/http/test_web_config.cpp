// The exporter-toolkit web config: what is accepted, and every rejection
// at file:line:col.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "http/security.hpp"
#include "http/web_config.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond::http {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr const char* kHash = "$2y$10$Pb/d0Qk0BRH5NWWlTyN3auJJdRyRbBNDMKgpgJDZVaIm9FvDVnVkG";

class WebConfigTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    auto path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string error_of(const std::string& text) {
    auto path = write("web.yml", text);
    try {
      parse_web_config(path);
    } catch (const WebConfigError& e) {
      std::string msg = e.what();
      auto at = msg.find(path);
      return at == 0 ? "web.yml" + msg.substr(path.size()) : msg;
    }
    return "(no error)";
  }
  test::TempDir dir_{"nvmond-webcfg"};
};

TEST_F(WebConfigTest, AnEmptyFileMeansPlainHttpWithoutAuth) {
  auto c = parse_web_config(write("web.yml", ""));
  EXPECT_FALSE(c.tls);
  EXPECT_TRUE(c.users.empty());
}

TEST_F(WebConfigTest, ReadsTlsAndUsersWithPathsRelativeToTheFile) {
  auto c = parse_web_config(write("web.yml", std::string("tls_server_config:\n"
                                                         "  cert_file: tls/server.crt\n"
                                                         "  key_file: /etc/k.pem\n"
                                                         "  client_auth_type: RequireAndVerifyClientCert\n"
                                                         "  client_ca_file: ca.crt\n"
                                                         "  min_version: TLS13\n"
                                                         "basic_auth_users:\n"
                                                         "  prometheus: ") +
                                                 kHash + "\n"));
  ASSERT_TRUE(c.tls);
  EXPECT_EQ(c.tls->cert_file, dir_.path() + "/tls/server.crt");
  EXPECT_EQ(c.tls->key_file, "/etc/k.pem");
  EXPECT_EQ(c.tls->client_ca_file, dir_.path() + "/ca.crt");
  EXPECT_EQ(c.tls->client_auth, ClientAuth::require_and_verify);
  EXPECT_EQ(c.tls->min_version, 0x0304);
  EXPECT_EQ(c.tls->cert_where, c.file + ":2:14");
  EXPECT_EQ(c.users.at("prometheus"), kHash);
}

TEST_F(WebConfigTest, ATlsSectionWithoutCertificateMeansPlainHttp) {
  auto c = parse_web_config(write("web.yml", "tls_server_config:\n  min_version: TLS12\n"));
  EXPECT_FALSE(c.tls);
}

TEST_F(WebConfigTest, RejectsWhatExporterToolkitRejectsAtItsLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"tls_server_config:\n  cert_file: a.crt\n", "web.yml:1:1: tls_server_config: key_file is required"},
      {"tls_server_config:\n  key_file: a.key\n", "web.yml:1:1: tls_server_config: cert_file is required"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n",
       "web.yml:4:21: client_auth_type \"Sometimes\": expected NoClientCert, RequestClientCert, "
       "RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: ca\n",
       "web.yml:4:3: client_ca_file is set but client_auth_type does not verify client certificates "
       "(use VerifyClientCertIfGiven or RequireAndVerifyClientCert)"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: VerifyClientCertIfGiven\n",
       "web.yml:1:1: client_auth_type verifies client certificates: client_ca_file is required"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n",
       "web.yml:4:16: min_version \"TLS14\": expected TLS10, TLS11, TLS12 or TLS13"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n",
       "web.yml:1:1: tls_server_config: max_version is below min_version"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
       "web.yml:4:3: tls_server_config.cipher_suites is not supported by nvmond"},
      {"tls_server_config:\n  cert_fil: a\n", "web.yml:2:3: unknown key tls_server_config.cert_fil"},
      {"tls_server_config:\n  cert_file: [a]\n  key_file: b\n", "web.yml:2:3: cert_file must be a string"},
      {"tls_server_config: yes\n", "web.yml:1:20: tls_server_config must be a mapping"},
      {"http_server_config:\n  http2: false\n", "web.yml:1:1: http_server_config is not supported by nvmond"},
      {"basic_auth_user:\n  a: b\n",
       "web.yml:1:1: unknown key \"basic_auth_user\" (expected tls_server_config, "
       "basic_auth_users)"},
      {"basic_auth_users:\n  alice: secret\n",
       "web.yml:2:10: basic_auth_users.alice: expected a bcrypt hash ($2y$10$..., e.g. from htpasswd -nBC 10)"},
      {std::string("basic_auth_users:\n  alice: ") + kHash + "\n  alice: " + kHash + "\n",
       "web.yml:3:3: duplicate key \"alice\""},
      {std::string("basic_auth_users:\n  a:b: ") + kHash + "\n",
       "web.yml:2:3: basic_auth_users: a user name cannot contain ':'"},
      {"- a\n- b\n", "web.yml:1:1: the web config must be a mapping"},
      {"basic_auth_users: alice\n  bob: x\n", "web.yml:2:6: illegal map value"},
  };
  for (const auto& [text, expected] : cases) EXPECT_EQ(error_of(text), expected) << text;
}

// YAML's "\0" escape puts a NUL in a string; crypt(3) and the Authorization
// header would both stop at it, so it is an error at its line.
TEST_F(WebConfigTest, ANulInAUserNameOrHashIsAnErrorAtItsLine) {
  EXPECT_EQ(error_of(std::string("basic_auth_users:\n  \"ali\\0ce\": ") + kHash + "\n"),
            "web.yml:2:3: basic_auth_users: a user name cannot contain NUL");
  EXPECT_EQ(error_of(std::string("basic_auth_users:\n  alice: \"") + kHash + "\\0\"\n"),
            "web.yml:2:10: basic_auth_users.alice: the hash contains NUL");
}

TEST_F(WebConfigTest, ADirectoryIsNotAWebConfig) { EXPECT_THROW(parse_web_config(dir_.path()), WebConfigError); }

// Go's crypto/tls, which exporter-toolkit's client_auth_type names: only the
// *Verify* modes check the chain, only the Require* modes fail without a
// certificate, and every mode but NoClientCert asks for one.
TEST(ClientAuthPolicy, EachModeAsksRequiresAndVerifiesAsGoDoes) {
  struct Row {
    ClientAuth auth;
    bool asked, required, verified;
  };
  for (const Row& r :
       {Row{ClientAuth::none, false, false, false}, Row{ClientAuth::request, true, false, false},
        Row{ClientAuth::require_any, true, true, false}, Row{ClientAuth::verify_if_given, true, false, true},
        Row{ClientAuth::require_and_verify, true, true, true}}) {
    const ClientCertPolicy p = policy_of(r.auth);
    EXPECT_EQ(p.asked, r.asked) << static_cast<int>(r.auth);
    EXPECT_EQ(p.required, r.required) << static_cast<int>(r.auth);
    EXPECT_EQ(p.verified, r.verified) << static_cast<int>(r.auth);
  }
}

TEST(BcryptHash, KnowsTheShapeCryptVerifies) {
  EXPECT_TRUE(is_bcrypt_hash(kHash));
  EXPECT_TRUE(is_bcrypt_hash(std::string(kHash).replace(2, 1, "b")));
  EXPECT_FALSE(is_bcrypt_hash(std::string(kHash).replace(2, 1, "x")));
  EXPECT_FALSE(is_bcrypt_hash(std::string(kHash).replace(4, 2, "03")));
  EXPECT_FALSE(is_bcrypt_hash(std::string(kHash) + "a"));
  EXPECT_FALSE(is_bcrypt_hash("$6$salt$hash"));
}

TEST_F(WebConfigTest, AMissingCertificateIsReportedAtItsLine) {
  auto path = write("web.yml", "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n");
  try {
    load_security(path);
    FAIL() << "no error";
  } catch (const WebConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":2:14: cert_file " + dir_.path() + "/missing.crt: ", 0), 0u)
        << e.what();
  }
}

TEST_F(WebConfigTest, LoadsAGeneratedCertificateAndRejectsAForeignKey) {
  auto d = dir_.path();
  auto gen = [&](const std::string& name) {
    return "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -keyout " + d + "/" + name +
           ".key -out " + d + "/" + name + ".crt 2>/dev/null";
  };
  if (std::system(gen("a").c_str()) != 0 || std::system(gen("b").c_str()) != 0) GTEST_SKIP() << "no openssl";
  auto good = load_security(write("good.yml", "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"));
  EXPECT_NE(good->tls, nullptr);
  auto bad = write("bad.yml", "tls_server_config:\n  cert_file: a.crt\n  key_file: b.key\n");
  try {
    load_security(bad);
    FAIL() << "a key of another certificate was accepted";
  } catch (const WebConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ":3:13: key_file " + d + "/b.key", 0), 0u) << e.what();
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::http
