// The per-client allowance of failed password checks, on an injected clock.
#include <gtest/gtest.h>

#include <boost/asio/ip/address.hpp>

#include <chrono>
#include <string>

#include "http/auth_limiter.hpp"

namespace nvmond::http {
namespace {
namespace NVMOND_TEST_UNIT {

using boost::asio::ip::make_address;
using std::chrono::seconds;

const AuthLimiter::TimePoint t0{seconds(1000)};
const AuthLimiter::Policy kPolicy{.burst = 3, .refill_every = seconds(10), .max_clients = 4};

TEST(AuthLimiter, AFreshClientIsCleanWithAFullAllowance) {
  AuthLimiter l(kPolicy);
  auto a = make_address("192.0.2.1");
  EXPECT_TRUE(l.clean(a, t0));
  EXPECT_FALSE(l.exhausted(a, t0));
  EXPECT_EQ(l.size(), 0u);
}

TEST(AuthLimiter, FailuresUseTheBurstThenOneComesBackPerRefillPeriod) {
  AuthLimiter l(kPolicy);
  auto a = make_address("192.0.2.1");
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(l.exhausted(a, t0));
    l.charge(a, t0);
    EXPECT_FALSE(l.clean(a, t0));
  }
  EXPECT_TRUE(l.exhausted(a, t0));
  EXPECT_EQ(l.retry_after(a, t0), seconds(10));
  EXPECT_EQ(l.retry_after(a, t0 + seconds(4)), seconds(6));
  EXPECT_TRUE(l.exhausted(a, t0 + seconds(9)));
  EXPECT_FALSE(l.exhausted(a, t0 + seconds(10)));
  l.charge(a, t0 + seconds(10));
  EXPECT_TRUE(l.exhausted(a, t0 + seconds(10)));
  // Refilled to the burst and no further: clean again, and forgotten.
  EXPECT_TRUE(l.clean(a, t0 + seconds(40)));
  l.charge(a, t0 + seconds(1000));
  l.charge(a, t0 + seconds(1000));
  l.charge(a, t0 + seconds(1000));
  EXPECT_TRUE(l.exhausted(a, t0 + seconds(1000)));
}

TEST(AuthLimiter, AnAcceptedCheckCostsNothing) {
  AuthLimiter l(kPolicy);
  auto a = make_address("192.0.2.1");
  for (int i = 0; i < 10; ++i) {
    l.charge(a, t0);
    l.refund(a, t0);
  }
  EXPECT_TRUE(l.clean(a, t0));
  EXPECT_EQ(l.size(), 0u);
}

TEST(AuthLimiter, ClientsHaveTheirOwnAllowance) {
  AuthLimiter l(kPolicy);
  auto guesser = make_address("192.0.2.1"), scraper = make_address("192.0.2.2");
  for (int i = 0; i < 3; ++i) l.charge(guesser, t0);
  EXPECT_TRUE(l.exhausted(guesser, t0));
  EXPECT_FALSE(l.exhausted(scraper, t0));
  EXPECT_TRUE(l.clean(scraper, t0));
}

TEST(AuthLimiter, AnIpv6ClientIsItsSlash64) {
  AuthLimiter l(kPolicy);
  for (int i = 0; i < 3; ++i) l.charge(make_address("2001:db8:1:2::" + std::to_string(i + 1)), t0);
  EXPECT_TRUE(l.exhausted(make_address("2001:db8:1:2:ffff::9"), t0));
  EXPECT_FALSE(l.exhausted(make_address("2001:db8:1:3::1"), t0));
}

TEST(AuthLimiter, AnIpv4MappedAddressIsItsIpv4Client) {
  AuthLimiter l(kPolicy);
  for (int i = 0; i < 3; ++i) l.charge(make_address("::ffff:192.0.2.1"), t0);
  EXPECT_TRUE(l.exhausted(make_address("192.0.2.1"), t0));
  EXPECT_FALSE(l.exhausted(make_address("::ffff:192.0.2.2"), t0));
}

TEST(AuthLimiter, TheTableStaysBoundedForgettingCleanThenIdlestClients) {
  AuthLimiter l(kPolicy);
  for (int i = 0; i < 100; ++i) {
    auto when = t0 + seconds(i);
    auto a = make_address("198.51.100." + std::to_string(i));
    for (int k = 0; k < 3; ++k) l.charge(a, when);
    EXPECT_LE(l.size(), 4u);
  }
  // The newest clients are still held to their allowance.
  EXPECT_TRUE(l.exhausted(make_address("198.51.100.99"), t0 + seconds(99)));
  EXPECT_TRUE(l.exhausted(make_address("198.51.100.98"), t0 + seconds(99)));
}

const AuthLimiter::Policy kRemembering{
    .burst = 3, .refill_every = seconds(10), .max_clients = 4, .clean_after = seconds(600)};

// A check that started and was refused.
void fail(AuthLimiter& l, const boost::asio::ip::address& a, AuthLimiter::TimePoint t) {
  l.charge(a, t);
  l.failed(a, t);
}

TEST(AuthLimiter, AClientThatFailedIsNotCleanAgainUntilItHasNotFailedForCleanAfter) {
  // A guesser refused as busy is not charged and refills; a full bucket must
  // not make it clean, or it takes the slots kept for first checks.
  AuthLimiter l(kRemembering);
  auto guesser = make_address("192.0.2.7");
  fail(l, guesser, t0);
  EXPECT_FALSE(l.clean(guesser, t0));
  EXPECT_FALSE(l.exhausted(guesser, t0 + seconds(100)));
  EXPECT_FALSE(l.clean(guesser, t0 + seconds(100))) << "a full bucket after a failure";
  EXPECT_FALSE(l.clean(guesser, t0 + seconds(599)));
  EXPECT_TRUE(l.clean(guesser, t0 + seconds(600)));
}

TEST(AuthLimiter, AnAcceptedCheckLeavesTheClientClean) {
  AuthLimiter l(kPolicy);
  auto scraper = make_address("192.0.2.8");
  l.charge(scraper, t0);
  l.refund(scraper, t0);
  EXPECT_TRUE(l.clean(scraper, t0));
  EXPECT_EQ(l.size(), 0u);
}

TEST(AuthLimiter, AFullTableDropsCleanClientsBeforeOnesThatFailedLately) {
  AuthLimiter l(kRemembering);
  auto failed = make_address("192.0.2.9");
  fail(l, failed, t0);
  for (int i = 0; i < 3; ++i) l.charge(make_address("198.51.100." + std::to_string(i + 1)), t0);
  ASSERT_EQ(l.size(), 4u);
  // At t0+100 every bucket is full again; the others are clean, the failed one is not.
  l.charge(make_address("203.0.113.1"), t0 + seconds(100));
  EXPECT_FALSE(l.clean(failed, t0 + seconds(100)));
  EXPECT_EQ(l.size(), 2u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::http
