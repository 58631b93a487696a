// `show` of a long run over the real run store: a 10-hour soak of one-second
// rounds has 100,000 of them in SQLite. Each control answer, which the event
// loop computes, carries one bounded page and says where the next begins, so
// the loop is never held for the whole run; paging reaches every round.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "daemon/control/control_commands.hpp"
#include "tests/support/control_json.hpp"
#include "soak/soak_runner.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

constexpr std::int64_t kRounds = 100000;

// One transaction straight into the file: committing 100,000 rounds one by
// one, as a run does, would take minutes of fsyncs. Each round's data is the
// least the run model's round codec reads.
void add_rounds(const std::string& db, std::int64_t run) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "BEGIN", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(h,
                         "INSERT INTO pts_rounds(run_id, idx, phase, iops, data) VALUES(?1, ?2, 'steady', ?3, "
                         "'{\"index\":' || ?2 || ',\"phase\":\"steady\",\"iops\":' || ?3 || ',\"started_ns\":0}')",
                         -1, &st, nullptr),
      SQLITE_OK);
  for (std::int64_t i = 0; i < kRounds; ++i) {
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, i);
    sqlite3_bind_double(st, 3, 1000.0 + static_cast<double>(i));
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
}

struct Fixture {
  test::TempDir dir{"nvmond-show"};
  std::string db = dir.path() + "/nvmond.db";
  std::shared_ptr<RunStore> store = std::shared_ptr<RunStore>(std::move(*SqliteRunStore::open_file(db)));
  ManualClock clock;
  SoakRunner runner{store, dir.path(),
                    [](const std::string&) -> Result<OpenedTarget> {
                      return Error{ErrorReason::absent, "no targets here"};
                    },
                    clock};
  SoakScheduler scheduler{runner, nullptr};
  ControlContext ctx{runner, scheduler, clock, [] { return std::vector<DriveSummary>{}; }, [] {}};
  std::int64_t run = 0;

  Fixture() {
    RunRow r;
    r.name = "wsat-long";
    r.test = "wsat";
    r.target = "sim:d0";
    r.serial = "SN-LONG";
    r.status = RunStatus::completed;
    run = *store->create_run(r);
    add_rounds(db, run);
  }
  json show(json extra = json::object()) {
    json req = {{"cmd", "show"}, {"run", run}};
    req.update(extra);
    return test::ask_control(req, ctx);
  }
};

TEST(ControlShow, ARunOfAHundredThousandRoundsIsAnsweredOneBoundedPageAtATime) {
  Fixture f;
  json first = f.show();
  ASSERT_TRUE(first["ok"]) << first.dump().substr(0, 200);
  EXPECT_EQ(first["rounds"].size(), RoundPage::kMaxRounds);
  EXPECT_EQ(first["rounds"][0]["index"], 0);
  EXPECT_EQ(first["next"], static_cast<std::int64_t>(RoundPage::kMaxRounds));
  EXPECT_EQ(first["run"]["serial"], "SN-LONG");
}

TEST(ControlShow, PagingFromEachNextReachesEveryRoundOnceAndEndsWithoutANext) {
  Fixture f;
  std::int64_t expected = 0;
  json from = 0;
  while (!from.is_null()) {
    json page = f.show({{"from", from}});
    ASSERT_TRUE(page["ok"]) << page.dump().substr(0, 200);
    ASSERT_LE(page["rounds"].size(), RoundPage::kMaxRounds);
    for (const auto& r : page["rounds"]) ASSERT_EQ(r["index"], expected++);
    from = page["next"];
  }
  EXPECT_EQ(expected, kRounds);
}

TEST(ControlShow, ASmallerLimitIsHonouredAndAnOutOfRangeOneIsRefusedClearly) {
  Fixture f;
  json page = f.show({{"from", kRounds - 3}, {"limit", 2}});
  ASSERT_TRUE(page["ok"]);
  ASSERT_EQ(page["rounds"].size(), 2u);
  EXPECT_EQ(page["rounds"][1]["index"], kRounds - 2);
  EXPECT_EQ(page["next"], kRounds - 1);

  // Refused by the codec, naming the key, before the store is read.
  for (const json& bad : {json{{"limit", 0}}, json{{"limit", RoundPage::kMaxRounds + 1}}, json{{"from", -1}}}) {
    const json refused = f.show(bad);
    EXPECT_EQ(refused["ok"], false) << bad;
    EXPECT_EQ(refused["reason"], "decode") << bad;
    EXPECT_NE(refused["error"].get<std::string>().find(bad.begin().key()), std::string::npos) << refused;
  }
}

// A stored round whose text is not a round (a hand-edited or damaged row):
// the page holding it is refused with the run and the round named, and the
// pages around it still answer.
TEST(ControlShow, AStoredRoundThatIsNotARoundIsNamedAndThePagesAroundItStillAnswer) {
  Fixture f;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(f.db.c_str(), &h), SQLITE_OK);
  const std::string damage =
      "UPDATE pts_rounds SET data = '{}' WHERE run_id = " + std::to_string(f.run) + " AND idx = 5";
  ASSERT_EQ(sqlite3_exec(h, damage.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);

  const json refused = f.show({{"limit", 10}});
  EXPECT_EQ(refused["ok"], false) << refused;
  EXPECT_EQ(refused["reason"], "decode") << refused;
  const std::string error = refused["error"];
  EXPECT_NE(error.find("run " + std::to_string(f.run) + ": round 5 in the store"), std::string::npos) << error;
  EXPECT_NE(error.find("index is required"), std::string::npos) << error;

  const json after = f.show({{"from", 6}, {"limit", 10}});
  ASSERT_TRUE(after["ok"]) << after.dump().substr(0, 200);
  EXPECT_EQ(after["rounds"][0]["index"], 6);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
