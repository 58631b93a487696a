#include "http/basic_auth.hpp"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cstring>
#include <memory>

#include "http/header_text.hpp"

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
  if (decoded->find('\0') != std::string::npos) return std::nullopt;
  auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return Credentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

bool bcrypt_verify(const std::string& password, const std::string& hash) {
  // crypt_rn falls back to other methods for other settings: bcrypt only.
  if (hash.size() < 7 || hash.compare(0, 2, "$2") != 0) return false;
  // crypt_rn reads C strings: a NUL would end the password early.
  if (password.find('\0') != std::string::npos || hash.find('\0') != std::string::npos) return false;
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* out = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  if (out == nullptr || out[0] == '*') return false;
  std::size_t n = std::strlen(out);
  return n == hash.size() && CRYPTO_memcmp(out, hash.data(), n) == 0;
}

Authenticator::Authenticator(std::map<std::string, std::string> users, AuthMemory memory)
    : users_(std::move(users)), accepted_(memory.accepted), rejected_(memory.rejected) {
  if (!users_.empty()) {
    // Same algorithm and cost as a real user's hash, a digest nobody matches.
    dummy_hash_ = users_.begin()->second.substr(0, 7) + "nvmondnvmondnvmondnvmoOnvmondnvmondnvmondnvmondnvmond";
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

void Authenticator::DigestSet::insert(const Digest& d) {
  if (cap_ == 0 || !set_.insert(d).second) return;
  order_.push_back(d);
  if (order_.size() > cap_) {
    set_.erase(order_.front());
    order_.pop_front();
  }
}

std::optional<bool> Authenticator::remembered(const Credentials& c) const {
  auto d = digest(c);
  std::lock_guard lock(mu_);
  if (accepted_.contains(d)) return true;
  if (rejected_.contains(d)) return false;
  return std::nullopt;
}

bool Authenticator::verify(const Credentials& c) {
  auto it = users_.find(c.user);
  bool ok = bcrypt_verify(c.password, it == users_.end() ? dummy_hash_ : it->second) && it != users_.end();
  auto d = digest(c);
  std::lock_guard lock(mu_);
  (ok ? accepted_ : rejected_).insert(d);
  return ok;
}

}  // namespace nvmond::http
