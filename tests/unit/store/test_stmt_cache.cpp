// Cached statements: reused across calls, safe when one text is in use
// twice at once, and never holding a read open once their Stmt has ended
// (an idle statement mid-rows would pin its WAL snapshot and block
// checkpoints).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include "store/sqlite_util.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond::sqlite {
namespace {
namespace NVMOND_TEST_UNIT {

struct Db {
  sqlite3* db = nullptr;
  explicit Db(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_TRUE(exec(db, "PRAGMA journal_mode=WAL", "wal"));
  }
  ~Db() { sqlite3_close_v2(db); }
};

int count_rows(StmtCache& cache) {
  Stmt st(cache, "SELECT v FROM t ORDER BY v");
  int n = 0;
  while (st.step() == SQLITE_ROW) ++n;
  return n;
}

TEST(StmtCache, AStatementLeftMidRowsHoldsNoReadOnceItsStmtEnds) {
  test::TempDir dir;
  const std::string path = dir.path() + "/t.db";
  Db a(path), b(path);
  ASSERT_TRUE(exec(a.db, "CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (1), (2)", "setup"));
  {
    StmtCache cache(a.db);
    {
      Stmt st(cache, "SELECT v FROM t ORDER BY v");
      ASSERT_EQ(st.step(), SQLITE_ROW);  // one row of two: the read is still open here
    }
    ASSERT_TRUE(exec(b.db, "INSERT INTO t VALUES (3)", "insert"));
    // Another connection can checkpoint the whole WAL: no reader pins it.
    int log = -1, done = -1;
    EXPECT_EQ(sqlite3_wal_checkpoint_v2(b.db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, &log, &done), SQLITE_OK);
    EXPECT_EQ(count_rows(cache), 3);  // the same statement again sees the new row
  }
}

TEST(StmtCache, OneTextInUseTwiceAtOnceGetsTwoStatements) {
  test::TempDir dir;
  Db a(dir.path() + "/t.db");
  ASSERT_TRUE(exec(a.db, "CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (1), (2)", "setup"));
  StmtCache cache(a.db);
  Stmt outer(cache, "SELECT v FROM t ORDER BY v");
  ASSERT_EQ(outer.step(), SQLITE_ROW);
  EXPECT_EQ(count_rows(cache), 2);  // nested: its own statement, the outer one untouched
  ASSERT_EQ(outer.step(), SQLITE_ROW);
  EXPECT_EQ(outer.int64(0), 2);
}

TEST(StmtCache, BindingsDoNotLeakIntoTheNextUse) {
  test::TempDir dir;
  Db a(dir.path() + "/t.db");
  ASSERT_TRUE(exec(a.db, "CREATE TABLE t(v INTEGER)", "setup"));
  StmtCache cache(a.db);
  {
    Stmt ins(cache, "INSERT INTO t VALUES (?1)");
    ins.bind(1, std::int64_t{7});
    ASSERT_EQ(ins.step(), SQLITE_DONE);
  }
  {
    Stmt ins(cache, "INSERT INTO t VALUES (?1)");  // nothing bound: NULL, not 7
    ASSERT_EQ(ins.step(), SQLITE_DONE);
  }
  Stmt st(a.db, "SELECT COUNT(*) FROM t WHERE v IS NULL");
  ASSERT_EQ(st.step(), SQLITE_ROW);
  EXPECT_EQ(st.int64(0), 1);
}

TEST(StmtCache, SqlThatDoesNotPrepareIsAnErrorEveryTime) {
  test::TempDir dir;
  Db a(dir.path() + "/t.db");
  StmtCache cache(a.db);
  for (int i = 0; i < 2; ++i) {
    Stmt st(cache, "SELECT nope FROM missing");
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.error("reading").message.find("missing"), std::string::npos) << st.error("reading").message;
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::sqlite
