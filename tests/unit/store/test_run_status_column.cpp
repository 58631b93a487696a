// The run store's status column is the run's one status: written and read
// through RunStatus's text, and a row whose text names no status is refused,
// not read as some default.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/sqlite_run_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

struct Fixture {
  test::TempDir dir{"run-status"};
  std::string path = dir.path() + "/runs.db";
  std::unique_ptr<SqliteRunStore> store = std::move(*SqliteRunStore::open_file(path));

  std::int64_t create(RunStatus status) {
    RunRow row;
    row.name = "w";
    row.test = "wsat";
    row.status = status;
    return store->create_run(row).value();
  }

  // What another program (or a newer nvmond) might have left in the column.
  void set_status_text(std::int64_t id, const std::string& text) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const std::string sql = "UPDATE pts_runs SET status = '" + text + "' WHERE id = " + std::to_string(id);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
};

TEST(RunStatusColumn, EveryStatusTheStoreRecordsReadsBack) {
  Fixture f;
  for (RunStatus s : {RunStatus::running, RunStatus::completed, RunStatus::interrupted, RunStatus::failed}) {
    const std::int64_t id = f.create(RunStatus::running);
    ASSERT_TRUE(f.store->update_run(id, s, 5, "{}"));
    EXPECT_EQ(f.store->run(id).value()->status, s) << to_text(s);
  }
}

TEST(RunStatusColumn, ARowNamingNoStatusIsRefusedNotDefaulted) {
  Fixture f;
  const std::int64_t id = f.create(RunStatus::completed);
  f.set_status_text(id, "stopped");
  auto row = f.store->run(id);
  ASSERT_FALSE(row);
  EXPECT_EQ(row.error().reason, ErrorReason::decode);
  EXPECT_NE(row.error().message.find("stopped"), std::string::npos) << row.error().message;
  EXPECT_FALSE(f.store->runs(std::nullopt, 10));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
