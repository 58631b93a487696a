// The connection cap: the longest-waiting connection goes first, a busy one never.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "http/connection_table.hpp"

namespace nvmond::http {
namespace {
namespace NVMOND_TEST_UNIT {

struct FakeConnection : Connection {
  std::vector<DropReason> drops;
  void drop(DropReason r) override { drops.push_back(r); }
};

using TP = ConnectionTable::TimePoint;
TP at(int s) { return TP(std::chrono::seconds(s)); }

TEST(ConnectionTable, AdmitsFreelyBelowTheCap) {
  ConnectionTable t(2);
  auto a = std::make_shared<FakeConnection>();
  EXPECT_TRUE(t.make_room());
  t.add(a, at(0));
  EXPECT_TRUE(t.make_room());
  EXPECT_TRUE(a->drops.empty());
}

TEST(ConnectionTable, AtTheCapDropsTheLongestWaitingConnection) {
  ConnectionTable t(3);
  auto a = std::make_shared<FakeConnection>(), b = std::make_shared<FakeConnection>(),
       c = std::make_shared<FakeConnection>();
  auto ia = t.add(a, at(1));
  t.add(b, at(2));
  t.add(c, at(3));
  t.set_waiting(ia, true, at(5));  // a answered a request and waits again since 5
  EXPECT_TRUE(t.make_room());
  EXPECT_TRUE(a->drops.empty());
  EXPECT_EQ(b->drops, std::vector<DropReason>{DropReason::evicted});
  EXPECT_TRUE(c->drops.empty());
  EXPECT_EQ(t.size(), 2u);
}

TEST(ConnectionTable, NeverDropsAConnectionThatIsBeingAnswered) {
  ConnectionTable t(2);
  auto a = std::make_shared<FakeConnection>(), b = std::make_shared<FakeConnection>();
  t.set_waiting(t.add(a, at(1)), false, at(3));  // the older one is answering a scrape
  t.add(b, at(2));
  EXPECT_TRUE(t.make_room());
  EXPECT_TRUE(a->drops.empty());
  EXPECT_EQ(b->drops.size(), 1u);
}

TEST(ConnectionTable, RefusesWhenEveryConnectionIsBusy) {
  ConnectionTable t(1);
  auto x = std::make_shared<FakeConnection>();
  t.set_waiting(t.add(x, at(0)), false, at(0));
  EXPECT_FALSE(t.make_room());
  EXPECT_TRUE(x->drops.empty());
}

TEST(ConnectionTable, ACapOfManyEvictsOnlyWhatIsNeeded) {
  ConnectionTable t(100);
  std::vector<std::shared_ptr<FakeConnection>> conns;
  for (int i = 0; i < 100; ++i) {
    conns.push_back(std::make_shared<FakeConnection>());
    t.add(conns.back(), at(i));
  }
  EXPECT_TRUE(t.make_room());
  int dropped = 0;
  for (auto& c : conns) dropped += static_cast<int>(c->drops.size());
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(conns[0]->drops.size(), 1u);
}

TEST(ConnectionTable, RemovingTwiceIsHarmlessAndDropAllEmptiesIt) {
  ConnectionTable t(4);
  auto a = std::make_shared<FakeConnection>();
  auto id = t.add(a, at(0));
  t.remove(id);
  t.remove(id);
  t.add(a, at(1));
  t.drop_all();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(a->drops, std::vector<DropReason>{DropReason::shutdown});
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::http
