#pragma once
// Per-client allowance of failed password checks. Every bcrypt check a
// client address starts takes a token from its bucket and a check that
// accepts gives it back, so only failures cost: `burst` of them at once,
// then one per `refill_every`. An address without tokens is answered 429
// without a bcrypt. An address whose bucket is full and that has not failed
// a check for `clean_after` is "clean": the session keeps a few bcrypt slots
// for those, so a scraper's first check is not queued out by addresses that
// keep failing. A full bucket alone is not enough: a guesser refused as busy
// while the queue is full is not charged, refills, and would take the kept
// slots as soon as it had waited `burst` refill periods.
//
// A client is its IPv4 address, or its IPv6 /64 (one host's usual share).
// The table holds at most `max_clients`; when full, clean entries go first
// (they equal a fresh one), then the one idle longest.
// Not thread-safe: used on the server's thread only.
#include <boost/asio/ip/address.hpp>

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>

namespace nvmond::http {

class AuthLimiter {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;

  struct Policy {
    double burst = 5;
    Duration refill_every = std::chrono::seconds(10);
    std::size_t max_clients = 4096;
    Duration clean_after = std::chrono::minutes(10);
  };

  explicit AuthLimiter(Policy policy) : policy_(policy) {}

  // No failed checks outstanding: a full bucket.
  bool clean(const boost::asio::ip::address& a, TimePoint now) const;
  // No token left: a new check would exceed the allowance.
  bool exhausted(const boost::asio::ip::address& a, TimePoint now) const;
  // Until the next token: whole seconds, at least 1 (for Retry-After).
  std::chrono::seconds retry_after(const boost::asio::ip::address& a, TimePoint now) const;
  // A check starts (takes a token) / accepted (gives it back) / refused
  // (remembered: the address is not clean for `clean_after`).
  void charge(const boost::asio::ip::address& a, TimePoint now);
  void refund(const boost::asio::ip::address& a, TimePoint now);
  void failed(const boost::asio::ip::address& a, TimePoint now);

  std::size_t size() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens = 0;
    TimePoint updated{};
    std::optional<TimePoint> last_failure;
  };
  static boost::asio::ip::address client_of(const boost::asio::ip::address& a);
  double tokens_at(const Bucket& b, TimePoint now) const;
  double tokens(const boost::asio::ip::address& a, TimePoint now) const;
  bool clean_at(const Bucket& b, TimePoint now) const;
  Bucket& bucket(const boost::asio::ip::address& key, TimePoint now);
  void set_tokens(const boost::asio::ip::address& a, double tokens, TimePoint now);
  void make_room(TimePoint now);

  Policy policy_;
  std::map<boost::asio::ip::address, Bucket> buckets_;
};

}  // namespace nvmond::http
