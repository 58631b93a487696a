// Each run keeps the fingerprint of the [[soak]] definition it started from,
// and a database written before the column existed still opens, its runs
// read with no definition.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/sqlite_run_store.hpp"
#include "store/sqlite_schema.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

RunRow row(const std::string& name, const std::string& definition) {
  RunRow r;
  r.name = name;
  r.test = "wsat";
  r.target = "sim:a";
  r.definition = definition;
  return r;
}

TEST(RunDefinitionColumn, TheNewestRunOfANameComesBackWithItsDefinition) {
  test::TempDir dir{"run-definition"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  EXPECT_FALSE(*store->latest_run("nightly"));
  const std::int64_t first = store->create_run(row("nightly", "00000000000000aa")).value();
  ASSERT_TRUE(store->update_run(first, RunStatus::completed, 5, "{}"));
  (void)store->create_run(row("other", "00000000000000cc")).value();
  auto latest = store->latest_run("nightly");
  ASSERT_TRUE(latest && *latest);
  EXPECT_EQ((*latest)->id, first);
  EXPECT_EQ((*latest)->status, RunStatus::completed);
  EXPECT_EQ((*latest)->definition, "00000000000000aa");

  const std::int64_t second = store->create_run(row("nightly", "00000000000000bb")).value();
  latest = store->latest_run("nightly");
  EXPECT_EQ((*latest)->id, second);
  EXPECT_EQ((*latest)->definition, "00000000000000bb");
  EXPECT_EQ((*latest)->status, RunStatus::running);
}

TEST(RunDefinitionColumn, ADatabaseFromBeforeTheColumnOpensAndItsRunsHaveNoDefinition) {
  test::TempDir dir{"run-definition-old"};
  const std::string path = dir.path() + "/runs.db";
  {
    // The schema as the version before definitions left it, with one run.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    int version = 0;
    for (const Migration& m : sqlite_migrations()) {
      if (m.version > 5) break;
      ASSERT_EQ(sqlite3_exec(db, m.sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
      version = m.version;
    }
    ASSERT_EQ(version, 5);
    ASSERT_EQ(sqlite3_exec(db,
                           "PRAGMA user_version = 5; INSERT INTO pts_runs(id, name, test, target, serial, model, "
                           "status, started_ns, ended_ns, header) VALUES(4, 'nightly', 'wsat', 'sim:a', 'SN', 'M', "
                           "'completed', 1, 2, '{}')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  auto store = SqliteRunStore::open_file(path);
  ASSERT_TRUE(store) << store.error().message;
  auto latest = (*store)->latest_run("nightly");
  ASSERT_TRUE(latest && *latest) << (latest ? "none" : latest.error().message);
  EXPECT_EQ((*latest)->id, 4);
  EXPECT_EQ((*latest)->status, RunStatus::completed);
  EXPECT_EQ((*latest)->definition, "");
  // And a run stored read-only by an older reader's query still reads.
  auto stored = read_stored_run(path, 4);
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->run.name, "nightly");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
