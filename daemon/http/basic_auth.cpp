#include "daemon/http/basic_auth.hpp"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cstring>
#include <memory>

#include "daemon/http/header_text.hpp"

namespace nvmond::http {
namespace {

std::optional<std::string> base64_decode(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  std::string out;
  unsigned bits = 0;
  int nbits = 0;
  for (char c : in) {
    int v = value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out.push_back(static_cast<char>((bits >> nbits) & 0xff));
    }
  }
  if (nbits >= 6) return std::nullopt;  // a dangling sextet: not base64
  return out;
}

// The bounded memory of verified credentials: a handful of scrapers use it.
constexpr std::size_t kMaxRemembered = 64;

}  // namespace

std::optional<Credentials> parse_basic_authorization(std::string_view value) {
  auto space = value.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto scheme = value.substr(0, space);
  if (!iequals(scheme, "Basic")) return std::nullopt;
  auto token = value.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  auto decoded = base64_decode(token);
  if (!decoded) return std::nullopt;
  auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return Credentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

bool bcrypt_verify(const std::string& password, const std::string& hash) {
  // crypt_rn falls back to other methods for other settings: bcrypt only.
  if (hash.size() < 7 || hash.compare(0, 2, "$2") != 0) return false;
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* out = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  if (out == nullptr || out[0] == '*') return false;
  std::size_t n = std::strlen(out);
  return n == hash.size() && CRYPTO_memcmp(out, hash.data(), n) == 0;
}

Authenticator::Authenticator(std::map<std::string, std::string> users) : users_(std::move(users)) {
  if (!users_.empty()) {
    // Same algorithm and cost as a real user's hash, a digest nobody matches.
    dummy_hash_ = users_.begin()->second.substr(0, 7) +
                  "nvmondnvmondnvmondnvmoOnvmondnvmondnvmondnvmondnvmond";
  }
}

Authenticator::Digest Authenticator::digest(const Credentials& c) {
  std::string input = c.user;
  input.push_back('\0');
  input += c.password;
  Digest d{};
  unsigned int len = 0;
  EVP_Digest(input.data(), input.size(), d.data(), &len, EVP_sha256(), nullptr);
  OPENSSL_cleanse(input.data(), input.size());
  return d;
}

bool Authenticator::known_good(const Credentials& c) const {
  auto d = digest(c);
  std::lock_guard lock(mu_);
  return good_.count(d) != 0;
}

bool Authenticator::verify(const Credentials& c) {
  auto it = users_.find(c.user);
  bool ok = bcrypt_verify(c.password, it == users_.end() ? dummy_hash_ : it->second) && it != users_.end();
  if (ok) {
    std::lock_guard lock(mu_);
    if (good_.size() >= kMaxRemembered) good_.clear();
    good_.insert(digest(c));
  }
  return ok;
}

}  // namespace nvmond::http
