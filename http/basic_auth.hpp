#pragma once
// HTTP Basic authentication against bcrypt hashes (exporter-toolkit's
// basic_auth_users). bcrypt is slow on purpose (tens of ms at cost 10), so
// verify() belongs off the event loop; the outcome for a credential is
// remembered by its SHA-256 (as exporter-toolkit caches it), so a scraper's
// next requests — right or misconfigured — cost a hash lookup, not a bcrypt.
// Accepted and rejected credentials are remembered apart, each in its own
// bounded memory: a guesser's stream of wrong passwords can only push out
// other wrong passwords, never the scraper's right one.
#include <array>
#include <cstddef>
#include <deque>
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
// A NUL anywhere in them is refused: crypt(3) would stop at it and verify
// only the part before it.
std::optional<Credentials> parse_basic_authorization(std::string_view value);

// crypt(3) (libxcrypt: $2a$, $2b$, $2y$) of `password` with `hash` as the
// setting, compared with `hash` in constant time. False for a password that
// contains a NUL (never verified truncated).
bool bcrypt_verify(const std::string& password, const std::string& hash);

// How many checked credentials an Authenticator remembers, accepted and
// rejected apart; the oldest of each kind goes first.
struct AuthMemory {
  std::size_t accepted = 256;
  std::size_t rejected = 1024;
};

class Authenticator {
 public:
  // name -> bcrypt hash; an empty map means no authentication.
  explicit Authenticator(std::map<std::string, std::string> users, AuthMemory memory = {});

  bool enabled() const { return !users_.empty(); }
  // The outcome of an earlier verify() of these exact credentials, if
  // remembered. Cheap. Thread-safe.
  std::optional<bool> remembered(const Credentials& c) const;
  // The full check (bcrypt). An unknown user costs a bcrypt too, so timing
  // does not tell which user names exist. Thread-safe.
  bool verify(const Credentials& c);

 private:
  using Digest = std::array<unsigned char, 32>;
  static Digest digest(const Credentials& c);

  // Digests in insertion order, at most `cap` of them.
  class DigestSet {
   public:
    explicit DigestSet(std::size_t cap) : cap_(cap) {}
    bool contains(const Digest& d) const { return set_.count(d) != 0; }
    void insert(const Digest& d);

   private:
    std::size_t cap_;
    std::set<Digest> set_;
    std::deque<Digest> order_;
  };

  std::map<std::string, std::string> users_;
  std::string dummy_hash_;
  mutable std::mutex mu_;
  DigestSet accepted_;
  DigestSet rejected_;
};

}  // namespace nvmond::http
