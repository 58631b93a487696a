// The request-head parser on whole, split, malformed and oversized heads.
#include <gtest/gtest.h>

#include <string>

#include "http/request_parser.hpp"

namespace nvmond::http {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::string_view kScrape =
    "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9947\r\nAccept-Encoding: gzip\r\n"
    "User-Agent: Prometheus/2.42.0\r\n\r\n";

TEST(RequestParser, ParsesAPrometheusScrape) {
  RequestParser p;
  EXPECT_EQ(p.feed(kScrape), kScrape.size());
  ASSERT_EQ(p.state(), RequestParser::State::complete);
  const auto& r = p.request();
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target, "/metrics");
  EXPECT_EQ(r.minor_version, 1);
  EXPECT_EQ(r.header("accept-encoding"), "gzip");
  EXPECT_EQ(r.header("user-agent"), "Prometheus/2.42.0");
  EXPECT_TRUE(r.keep_alive());
  EXPECT_FALSE(r.has_body());
}

TEST(RequestParser, GivesTheSameRequestWhenBytesArriveOneAtATime) {
  RequestParser p;
  for (char c : kScrape) {
    ASSERT_NE(p.state(), RequestParser::State::error);
    EXPECT_EQ(p.feed(std::string_view(&c, 1)), 1u);
  }
  ASSERT_EQ(p.state(), RequestParser::State::complete);
  EXPECT_EQ(p.request().target, "/metrics");
  EXPECT_EQ(p.request().headers.size(), 3u);
}

TEST(RequestParser, LeavesPipelinedBytesUnconsumed) {
  std::string two = std::string(kScrape) + "GET / HTTP/1.1\r\n\r\n";
  RequestParser p;
  EXPECT_EQ(p.feed(two), kScrape.size());
  EXPECT_EQ(p.state(), RequestParser::State::complete);
  p.reset();
  EXPECT_FALSE(p.started());
  p.feed(std::string_view(two).substr(kScrape.size()));
  EXPECT_EQ(p.request().target, "/");
}

TEST(RequestParser, AcceptsBareLinefeedsAndLeadingEmptyLines) {
  RequestParser p;
  p.feed("\r\nHEAD /metrics?x=1 HTTP/1.0\nConnection: keep-alive\n\n");
  ASSERT_EQ(p.state(), RequestParser::State::complete);
  EXPECT_EQ(p.request().method, "HEAD");
  EXPECT_EQ(p.request().path(), "/metrics");
  EXPECT_TRUE(p.request().keep_alive());
}

TEST(RequestParser, KeepAliveFollowsTheVersionAndConnectionHeader) {
  auto keep = [](std::string_view head) {
    RequestParser p;
    p.feed(head);
    EXPECT_EQ(p.state(), RequestParser::State::complete) << head;
    return p.request().keep_alive();
  };
  EXPECT_TRUE(keep("GET / HTTP/1.1\r\n\r\n"));
  EXPECT_FALSE(keep("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n"));
  EXPECT_FALSE(keep("GET / HTTP/1.0\r\n\r\n"));
  EXPECT_TRUE(keep("GET / HTTP/1.0\r\nConnection: foo, Keep-Alive\r\n\r\n"));
}

TEST(RequestParser, ReducesAbsoluteFormTargetsToTheirPath) {
  RequestParser p;
  p.feed("GET http://host:9947/metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(p.request().target, "/metrics");
}

TEST(RequestParser, SeesAnnouncedBodies) {
  RequestParser p;
  p.feed("POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\n");
  EXPECT_TRUE(p.request().has_body());
  p.reset();
  p.feed("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_TRUE(p.request().has_body());
}

struct Bad {
  std::string head;
  int status;
  std::string reason;
};

TEST(RequestParser, RejectsMalformedHeadsWithTheirStatus) {
  const Bad cases[] = {
      {"GET /metrics\r\n\r\n", 400, "malformed request line"},
      {"GET  /metrics HTTP/1.1\r\n\r\n", 400, "malformed request line"},
      {"GET /metrics HTTP/1.1 x\r\n\r\n", 400, "malformed request line"},
      {"G(T /metrics HTTP/1.1\r\n\r\n", 400, "malformed method"},
      {"GET metrics HTTP/1.1\r\n\r\n", 400, "malformed request target"},
      {"GET /metrics HTTP/1\r\n\r\n", 400, "malformed HTTP version"},
      {"GET /metrics HTTP/2.0\r\n\r\n", 505, "only HTTP/1.x is served"},
      {"GET / HTTP/1.1\r\nNo-Colon\r\n\r\n", 400, "header field without a colon"},
      {"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, "malformed header field name"},
      {"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400, "obsolete header line folding"},
      {"GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400, "malformed Content-Length"},
  };
  for (const auto& c : cases) {
    RequestParser p;
    p.feed(c.head);
    EXPECT_EQ(p.state(), RequestParser::State::error) << c.head;
    EXPECT_EQ(p.error_status(), c.status) << c.head;
    EXPECT_EQ(p.error_reason(), c.reason) << c.head;
  }
}

TEST(RequestParser, StopsAtTheHeadSizeLimitWithoutBufferingMore) {
  RequestParser p(RequestParser::Limits{.max_head_bytes = 64, .max_fields = 100});
  std::string head = "GET / HTTP/1.1\r\nX-Big: " + std::string(1000, 'a');
  auto used = p.feed(head);
  EXPECT_EQ(p.state(), RequestParser::State::error);
  EXPECT_EQ(p.error_status(), 431);
  EXPECT_EQ(p.error_reason(), "request header larger than 64 bytes");
  EXPECT_LE(used, 64u);
  EXPECT_EQ(p.feed("more"), 0u);  // nothing more is taken once in error
}

TEST(RequestParser, AHeadOfExactlyTheLimitIsAccepted) {
  std::string head = "GET / HTTP/1.1\r\nA: b\r\n\r\n";
  RequestParser exact(RequestParser::Limits{.max_head_bytes = head.size(), .max_fields = 100});
  exact.feed(head);
  EXPECT_EQ(exact.state(), RequestParser::State::complete);
  RequestParser under(RequestParser::Limits{.max_head_bytes = head.size() - 1, .max_fields = 100});
  under.feed(head);
  EXPECT_EQ(under.error_status(), 431);
}

TEST(RequestParser, LimitsTheNumberOfFields) {
  RequestParser p(RequestParser::Limits{.max_head_bytes = 8192, .max_fields = 3});
  p.feed("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n");
  EXPECT_EQ(p.error_status(), 431);
  EXPECT_EQ(p.error_reason(), "more than 3 header fields");
}

TEST(RequestParser, CountsAnyByteAsTheStartOfARequest) {
  RequestParser p;
  EXPECT_FALSE(p.started());
  p.feed("G");
  EXPECT_TRUE(p.started());
  EXPECT_EQ(p.state(), RequestParser::State::incomplete);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::http
