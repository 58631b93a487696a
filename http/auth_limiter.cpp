#include "http/auth_limiter.hpp"

#include <boost/asio/ip/network_v6.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace nvmond::http {

boost::asio::ip::address AuthLimiter::client_of(const boost::asio::ip::address& a) {
  if (a.is_v4()) return a;
  auto v6 = a.to_v6();
  if (v6.is_v4_mapped()) return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v6);
  // One host usually gets a /64: counting its addresses apart would give it
  // 2^64 allowances.
  return boost::asio::ip::make_network_v6(v6, 64).network();
}

double AuthLimiter::tokens_at(const Bucket& b, TimePoint now) const {
  double refilled = std::chrono::duration<double>(now - b.updated) / policy_.refill_every;
  return std::min(policy_.burst, b.tokens + std::max(0.0, refilled));
}

double AuthLimiter::tokens(const boost::asio::ip::address& a, TimePoint now) const {
  auto it = buckets_.find(client_of(a));
  return it == buckets_.end() ? policy_.burst : tokens_at(it->second, now);
}

bool AuthLimiter::clean_at(const Bucket& b, TimePoint now) const {
  return tokens_at(b, now) >= policy_.burst && (!b.last_failure || now - *b.last_failure >= policy_.clean_after);
}

bool AuthLimiter::clean(const boost::asio::ip::address& a, TimePoint now) const {
  auto it = buckets_.find(client_of(a));
  return it == buckets_.end() || clean_at(it->second, now);
}

bool AuthLimiter::exhausted(const boost::asio::ip::address& a, TimePoint now) const { return tokens(a, now) < 1.0; }

std::chrono::seconds AuthLimiter::retry_after(const boost::asio::ip::address& a, TimePoint now) const {
  double missing = std::max(0.0, 1.0 - tokens(a, now));
  double seconds = std::ceil(missing * std::chrono::duration<double>(policy_.refill_every).count());
  return std::chrono::seconds(std::max<long>(1, static_cast<long>(seconds)));
}

void AuthLimiter::charge(const boost::asio::ip::address& a, TimePoint now) { set_tokens(a, tokens(a, now) - 1.0, now); }

void AuthLimiter::refund(const boost::asio::ip::address& a, TimePoint now) { set_tokens(a, tokens(a, now) + 1.0, now); }

void AuthLimiter::failed(const boost::asio::ip::address& a, TimePoint now) {
  Bucket& b = bucket(client_of(a), now);
  b.tokens = tokens_at(b, now);
  b.updated = now;
  b.last_failure = now;
}

AuthLimiter::Bucket& AuthLimiter::bucket(const boost::asio::ip::address& key, TimePoint now) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    make_room(now);
    it = buckets_.emplace(key, Bucket{policy_.burst, now, std::nullopt}).first;
  }
  return it->second;
}

void AuthLimiter::set_tokens(const boost::asio::ip::address& a, double tokens, TimePoint now) {
  auto key = client_of(a);
  auto it = buckets_.find(key);
  if (tokens >= policy_.burst &&
      (it == buckets_.end() || clean_at(Bucket{tokens, now, it->second.last_failure}, now))) {
    if (it != buckets_.end()) buckets_.erase(it);  // a clean full bucket is what an absent one means
    return;
  }
  Bucket& b = bucket(key, now);
  b.tokens = tokens;
  b.updated = now;
}

void AuthLimiter::make_room(TimePoint now) {
  if (policy_.max_clients == 0 || buckets_.size() < policy_.max_clients) return;
  std::erase_if(buckets_, [&](const auto& entry) { return clean_at(entry.second, now); });
  if (buckets_.size() < policy_.max_clients) return;
  auto idlest = std::min_element(buckets_.begin(), buckets_.end(),
                                 [](const auto& x, const auto& y) { return x.second.updated < y.second.updated; });
  buckets_.erase(idlest);
}

}  // namespace nvmond::http
