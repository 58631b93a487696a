#pragma once
// HTTP Basic authentication against bcrypt hashes (exporter-toolkit's
// basic_auth_users). bcrypt is slow on purpose (tens of ms at cost 10), so
// verify() belongs off the event loop; a credential that verified once is
// remembered by its SHA-256, so a scraper's next requests cost a hash lookup.
#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace nvmond::http {

struct Credentials {
  std::string user;
  std::string password;
};

// The credentials of an "Authorization: Basic <base64(user:password)>" value.
std::optional<Credentials> parse_basic_authorization(std::string_view value);

// crypt(3) (libxcrypt: $2a$, $2b$, $2y$) of `password` with `hash` as the
// setting, compared with `hash` in constant time.
bool bcrypt_verify(const std::string& password, const std::string& hash);

class Authenticator {
 public:
  // name -> bcrypt hash; an empty map means no authentication.
  explicit Authenticator(std::map<std::string, std::string> users);

  bool enabled() const { return !users_.empty(); }
  // True if these exact credentials verified before. Cheap. Thread-safe.
  bool known_good(const Credentials& c) const;
  // The full check (bcrypt). An unknown user costs a bcrypt too, so timing
  // does not tell which user names exist. Thread-safe.
  bool verify(const Credentials& c);

 private:
  using Digest = std::array<unsigned char, 32>;
  static Digest digest(const Credentials& c);

  std::map<std::string, std::string> users_;
  std::string dummy_hash_;
  mutable std::mutex mu_;
  std::set<Digest> good_;
};

}  // namespace nvmond::http
