// The control socket against clients that never finish: real Unix sockets in
// a temp dir, the server's deadlines fired by advancing a ManualClock (no
// sleeps). An idle or half-sent connection is answered with an error and
// closed once kControlRequestTimeout passes, so connections held open cannot
// lock nvmonctl out for longer than that; the slot accounting keeps room for
// root and for every group member whatever one member holds.
#include "daemon/control/control_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

// One client connection, blocking with a receive timeout so that a server
// that never answers fails the test instead of hanging it.
class Client {
 public:
  explicit Client(const std::string& path) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ADD_FAILURE() << "connect " << path << ": " << std::strerror(errno);
    }
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void send(const std::string& text) {
    ASSERT_EQ(::send(fd_, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size()));
  }

  // The next line from the server; empty when it closed first.
  std::string line() {
    std::string out;
    char c = 0;
    while (::recv(fd_, &c, 1, 0) == 1) {
      if (c == '\n') return out;
      out += c;
    }
    return {};
  }
  // Whether the server has closed its end (no data waiting, EOF).
  bool closed() {
    char c = 0;
    return ::recv(fd_, &c, 1, MSG_DONTWAIT | MSG_PEEK) == 0;
  }

 private:
  int fd_;
};

class ControlServerTest : public ::testing::Test {
 protected:
  // Runs every handler that is ready, including those the previous ones made ready.
  void settle() {
    for (int i = 0; i < 20; ++i) io.poll();
  }

  test::TempDir dir{"nvmond-control"};
  const std::string path = dir.path() + "/control.sock";
  boost::asio::io_context io;
  ManualClock clock;
  ControlServer server{io, clock, ControlSettings{path, ""},
                       [](const control::Request&) -> control::AnyReply { return control::PingReply{}; }};
};

TEST_F(ControlServerTest, AnIdleConnectionIsAnsweredWithAnErrorAndClosedWhenTheTimeoutPasses) {
  Client idle(path);
  settle();
  EXPECT_EQ(server.connections(), 1u);
  clock.advance(kControlRequestTimeout - 1ns);
  settle();
  EXPECT_FALSE(idle.closed());
  clock.advance(1ns);
  settle();
  EXPECT_THAT(idle.line(), HasSubstr("no complete request line within 5 s"));
  EXPECT_TRUE(idle.closed());
  EXPECT_EQ(server.connections(), 0u);
}

TEST_F(ControlServerTest, AHalfSentRequestTimesOutLikeAnIdleOne) {
  Client half(path);
  half.send("{\"cmd\":\"pi");
  settle();
  clock.advance(kControlRequestTimeout);
  settle();
  EXPECT_THAT(half.line(), HasSubstr("no complete request line"));
  EXPECT_TRUE(half.closed());
}

TEST_F(ControlServerTest, EachReplyStartsTheNextRequestsDeadline) {
  Client c(path);
  settle();
  for (int i = 0; i < 3; ++i) {
    clock.advance(kControlRequestTimeout - 1s);
    settle();
    c.send("{\"cmd\":\"ping\"}\n");
    settle();
    EXPECT_EQ(nlohmann::json::parse(c.line(), nullptr, false)["ok"], true) << "request " << i;
  }
  clock.advance(kControlRequestTimeout);
  settle();
  EXPECT_THAT(c.line(), HasSubstr("no complete request line"));
}

// JSON has no infinities: a stored round's IOPS of inf reaches nvmonctl as
// null (which it prints as "-"), never as text it cannot parse.
TEST(ControlReply, NonFiniteNumbersAreSentAsNull) {
  test::TempDir dir{"nvmond-control"};
  boost::asio::io_context io;
  ManualClock clock;
  const ControlHandler non_finite = [](const control::Request&) -> control::AnyReply {
    constexpr double inf = std::numeric_limits<double>::infinity();
    control::ShowReply show;
    for (double iops : {inf, -inf, std::numeric_limits<double>::quiet_NaN(), 5.0}) {
      show.rounds.push_back({static_cast<std::int64_t>(show.rounds.size()), "test", iops, RoundRecord{}});
    }
    return show;
  };
  ControlServer server{io, clock, ControlSettings{dir.path() + "/c.sock", ""}, non_finite};
  Client c(dir.path() + "/c.sock");
  c.send("{\"cmd\":\"show\",\"run\":1}\n");
  for (int i = 0; i < 20; ++i) io.poll();
  const auto reply = nlohmann::json::parse(c.line(), nullptr, false);
  ASSERT_FALSE(reply.is_discarded());
  nlohmann::json iops = nlohmann::json::array();
  for (const auto& round : reply["rounds"]) iops.push_back(round["iops"]);
  EXPECT_EQ(iops, nlohmann::json::parse("[null, null, null, 5.0]"));
}

// 64 connections that never sent a line refused every
// nvmonctl for as long as they were held.
TEST_F(ControlServerTest, SixtyFourIdleConnectionsHoldTheSocketOnlyUntilTheTimeout) {
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 70; ++i) {
    idle.push_back(std::make_unique<Client>(path));
    settle();
  }
  EXPECT_EQ(server.connections(), 64u);
  clock.advance(kControlRequestTimeout);
  settle();
  EXPECT_EQ(server.connections(), 0u);
  for (auto& c : idle) {
    EXPECT_FALSE(c->line().empty());  // refused, or told it took too long
    EXPECT_TRUE(c->closed());
  }

  Client operator_(path);
  operator_.send("{\"cmd\":\"status\"}\n");
  settle();
  EXPECT_EQ(nlohmann::json::parse(operator_.line(), nullptr, false)["ok"], true);
}

// A reload or shutdown destroys the server: its connections end with it,
// and none keeps a timer of the clock armed.
TEST_F(ControlServerTest, DestroyingTheServerEndsItsConnections) {
  auto second = std::make_unique<ControlServer>(
      io, clock, ControlSettings{dir.path() + "/second.sock", ""},
      [](const control::Request&) -> control::AnyReply { return control::PingReply{}; });
  Client c(dir.path() + "/second.sock");
  settle();
  EXPECT_EQ(second->connections(), 1u);
  EXPECT_EQ(clock.armed_timers(), 1u);
  second.reset();
  EXPECT_TRUE(c.closed());
  EXPECT_EQ(clock.armed_timers(), 0u);
}

constexpr uid_t kRoot = 0, kAlice = 1000, kBob = 1001;

TEST(ControlSlots, OneGroupMemberCannotTakeMoreThanItsShare) {
  ControlSlots slots({.total = 64, .per_uid = 8, .reserved = 4});
  for (int i = 0; i < 8; ++i) ASSERT_EQ(slots.take(kAlice, false), std::nullopt) << i;
  EXPECT_EQ(slots.take(kAlice, false), "too many control connections from uid 1000 (at most 8 each)");
  EXPECT_EQ(slots.take(kBob, false), std::nullopt);
  EXPECT_EQ(slots.take(kRoot, true), std::nullopt);
  slots.give_back(kAlice);
  EXPECT_EQ(slots.take(kAlice, false), std::nullopt);
  EXPECT_EQ(slots.held(), 10u);
}

TEST(ControlSlots, GroupMembersTogetherLeaveRootItsReservedSlots) {
  ControlSlots slots({.total = 64, .per_uid = 8, .reserved = 4});
  std::size_t members = 0;
  for (uid_t uid = 2000; uid < 2010; ++uid) {
    for (int i = 0; i < 8; ++i) members += slots.take(uid, false) ? 0 : 1;
  }
  EXPECT_EQ(members, 60u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(slots.take(kRoot, true), std::nullopt) << i;
  EXPECT_EQ(slots.take(kRoot, true), "too many control connections");
  slots.give_back(2000);
  EXPECT_EQ(slots.take(kRoot, true), std::nullopt) << "a member's freed slot serves root too";
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
