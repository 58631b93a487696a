// The two-slot state file: a load returns the newest complete save; a slot
// cut short (as by a kill -9 in the middle of a save) is never chosen, and
// the save after it never overwrites the one complete save left.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "core/slot_file.hpp"
#include "core/unique_fd.hpp"
#include "tests/support/kill_nine.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

std::string path_in(const test::TempDir& dir) { return (std::filesystem::path(dir.path()) / "state.slots").string(); }

std::string read_ok(const std::string& path) {
  auto text = SlotFile::read(path);
  EXPECT_TRUE(text.ok()) << text.error().message;
  return text.ok() ? *text : std::string();
}

// Overwrites bytes of the file at `offset`, as a save that stopped part way
// would have left them.
void poke(const std::string& path, std::size_t offset, const void* bytes, std::size_t n) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  ASSERT_EQ(::pwrite(fd.get(), bytes, n, static_cast<off_t>(offset)), static_cast<ssize_t>(n));
}

void poke_u64(const std::string& path, std::size_t offset, std::uint64_t v) { poke(path, offset, &v, sizeof v); }

// A well-formed slot file at `path` whose newest save is `content`.
void make_slot_file(const std::string& path, const std::string& content) {
  auto file = SlotFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_FALSE(file->save(content));
}

TEST(SlotFile, ReadsTheNewestSaveAcrossReopens) {
  test::TempDir dir;
  const auto path = path_in(dir);
  EXPECT_EQ(SlotFile::read(path).error().reason, ErrorReason::absent);
  {
    auto file = SlotFile::open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    // A fresh file holds no save yet.
    EXPECT_EQ(SlotFile::read(path).error().reason, ErrorReason::decode);
    for (const char* s : {"one", "two, longer", "3"}) ASSERT_FALSE(file->save(s));
    EXPECT_EQ(read_ok(path), "3");
  }
  auto again = SlotFile::open(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(read_ok(path), "3");  // opening keeps the saves
  ASSERT_FALSE(again->save(""));
  EXPECT_EQ(read_ok(path), "");
}

TEST(SlotFile, ASlotCutShortIsNeverChosenNorIsTheLastCompleteSaveOverwritten) {
  test::TempDir dir;
  const auto path = path_in(dir);
  auto file = SlotFile::open(path);
  ASSERT_TRUE(file.ok());
  ASSERT_FALSE(file->save("first save"));   // slot 0, generation 1
  ASSERT_FALSE(file->save("second save"));  // slot 1, generation 2
  const std::size_t slot0 = SlotFile::slot_offset(file->capacity(), 0);
  const std::size_t slot1 = SlotFile::slot_offset(file->capacity(), 1);

  // A third save into slot 0 that wrote its generation, its length and half
  // its payload, but not its checksum: the newest generation, yet torn.
  poke_u64(path, slot0 + 0, 3);
  poke_u64(path, slot0 + 8, 10);
  poke(path, slot0 + SlotFile::kSlotHeaderBytes, "third", 5);
  EXPECT_EQ(read_ok(path), "second save");

  // The next save goes to the torn slot, not over the one complete save.
  ASSERT_FALSE(file->save("fourth save"));
  EXPECT_EQ(read_ok(path), "fourth save");
  std::string kept(11, '\0');
  {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_EQ(::pread(fd.get(), kept.data(), kept.size(), static_cast<off_t>(slot1 + SlotFile::kSlotHeaderBytes)), 11);
  }
  EXPECT_EQ(kept, "second save");

  // A payload changed after its checksum was written: the older slot wins.
  poke(path, slot0 + SlotFile::kSlotHeaderBytes, "F", 1);
  EXPECT_EQ(read_ok(path), "second save");
  // Both slots damaged: no save at all, said so.
  poke(path, slot1 + SlotFile::kSlotHeaderBytes, "S", 1);
  auto none = SlotFile::read(path);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().reason, ErrorReason::decode);
  EXPECT_NE(none.error().message.find(path), std::string::npos) << none.error().message;
}

TEST(SlotFile, ALargerSaveGrowsTheSlotsAndOneAboveTheLimitIsRefused) {
  test::TempDir dir;
  const auto path = path_in(dir);
  auto file = SlotFile::open(path);
  ASSERT_TRUE(file.ok());
  ASSERT_FALSE(file->save("small"));
  const std::string big(3 * file->capacity(), 'b');
  ASSERT_FALSE(file->save(big));
  EXPECT_GE(file->capacity(), big.size());
  EXPECT_EQ(read_ok(path), big);
  EXPECT_EQ(std::filesystem::file_size(path), SlotFile::file_bytes(file->capacity()));
  ASSERT_FALSE(file->save("small again"));
  EXPECT_EQ(read_ok(path), "small again");

  auto err = file->save(std::string(SlotFile::kMaxPayloadBytes + 1, 'x'));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->reason, ErrorReason::full);
  EXPECT_NE(err->message.find(path), std::string::npos) << err->message;
  EXPECT_EQ(read_ok(path), "small again");
}

TEST(SlotFile, AFileThatIsNotASlotFileIsReportedAndReplacedOnOpen) {
  test::TempDir dir;
  const auto path = path_in(dir);
  std::ofstream(path) << "{ \"format\": \"something else\" }";
  auto text = SlotFile::read(path);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().reason, ErrorReason::decode);
  auto file = SlotFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_FALSE(file->save("fresh"));
  EXPECT_EQ(read_ok(path), "fresh");
  auto bad_dir = SlotFile::open((std::filesystem::path(dir.path()) / "no" / "such" / "f").string());
  ASSERT_FALSE(bad_dir.ok());
  EXPECT_EQ(bad_dir.error().reason, ErrorReason::io);
}

// The slot file lives in a root daemon's state directory: a symlink there
// (to a well-formed slot file elsewhere) is neither read nor written
// through, and a FIFO does not block the daemon's start; both are replaced
// by a fresh slot file.
TEST(SlotFile, ASymlinkOrAFifoAtThePathIsNeitherFollowedNorWaitedOnButReplaced) {
  test::TempDir dir;
  const std::filesystem::path d(dir.path());
  const auto elsewhere = (d / "elsewhere.slots").string();
  ASSERT_NO_FATAL_FAILURE(make_slot_file(elsewhere, "not yours"));
  const auto before = read_ok(elsewhere);
  const auto path = path_in(dir);
  std::filesystem::create_symlink(elsewhere, path);
  EXPECT_FALSE(SlotFile::read(path).ok());
  {
    auto file = SlotFile::open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_FALSE(file->save("mine"));
  }
  EXPECT_EQ(read_ok(elsewhere), before);
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  EXPECT_EQ(read_ok(path), "mine");

  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(SlotFile::read(path).ok());
  auto file = SlotFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_FALSE(file->save("after the fifo"));
  EXPECT_TRUE(std::filesystem::is_regular_file(path));
  EXPECT_EQ(read_ok(path), "after the fifo");
}

// The state file lives where an operator (or a script gone wrong) can
// truncate it while the daemon runs: the next save neither dies of it (a
// shared mapping would take a SIGBUS) nor writes into a file with no header,
// but rebuilds the file from the save at hand and says why.
TEST(SlotFile, ATruncationWhileOpenIsFoundByTheNextSaveWhichRebuildsTheFile) {
  test::TempDir dir;
  const auto path = path_in(dir);
  auto file = SlotFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_FALSE(file->save("before"));
  EXPECT_EQ(file->rebuilt(), "");
  for (const std::size_t cut : {std::size_t{0}, std::size_t{100}, SlotFile::slot_offset(file->capacity(), 1)}) {
    std::filesystem::resize_file(path, cut);
    const std::string content = "after a cut to " + std::to_string(cut);
    ASSERT_FALSE(file->save(content));
    EXPECT_NE(file->rebuilt().find("truncated"), std::string::npos) << file->rebuilt();
    EXPECT_EQ(std::filesystem::file_size(path), SlotFile::file_bytes(file->capacity()));
    EXPECT_EQ(read_ok(path), content);
    ASSERT_FALSE(file->save(content + ", and one more"));  // the rebuilt file takes saves again
    EXPECT_EQ(file->rebuilt(), "");
    EXPECT_EQ(read_ok(path), content + ", and one more");
  }
}

// A hard link planted at the path to a valid slot file elsewhere (outside
// the state directory, say) is neither loaded nor written through: the
// entry is replaced and the file it shared keeps every byte.
TEST(SlotFile, AHardLinkToAFileElsewhereIsNeitherReadNorWrittenThroughButReplaced) {
  test::TempDir dir;
  const std::filesystem::path d(dir.path());
  const auto elsewhere = (d / "elsewhere.slots").string();
  ASSERT_NO_FATAL_FAILURE(make_slot_file(elsewhere, "not yours"));
  const auto before = read_ok(elsewhere);
  const auto size_before = std::filesystem::file_size(elsewhere);
  const auto path = path_in(dir);
  std::filesystem::create_hard_link(elsewhere, path);
  auto text = SlotFile::read(path);
  ASSERT_FALSE(text.ok()) << "read through a hard link: " << *text;
  EXPECT_NE(text.error().message.find("2 links"), std::string::npos) << text.error().message;
  {
    auto file = SlotFile::open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_FALSE(file->save("mine"));
    ASSERT_FALSE(file->save("mine again"));
  }
  EXPECT_EQ(read_ok(elsewhere), before);
  EXPECT_EQ(std::filesystem::file_size(elsewhere), size_before);
  EXPECT_EQ(std::filesystem::hard_link_count(elsewhere), 1u);
  EXPECT_EQ(read_ok(path), "mine again");
}

// Another user's file in the state directory is not the daemon's state.
TEST(SlotFile, AFileOwnedByAnotherUserIsNotReadAndIsReplaced) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file away";
  test::TempDir dir;
  const auto path = path_in(dir);
  {
    auto file = SlotFile::open(path);
    ASSERT_TRUE(file.ok());
    ASSERT_FALSE(file->save("planted"));
  }
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  auto text = SlotFile::read(path);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("owned by uid 65534"), std::string::npos) << text.error().message;
  auto file = SlotFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_FALSE(file->save("mine"));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(read_ok(path), "mine");
}

// Save N: the decimal N, a colon, then a payload of one letter that N picks,
// so a mix of two saves shows.
std::string save_number(std::uint64_t n) {
  std::string s = std::to_string(n) + ":";
  s.append(256 * 1024, static_cast<char>('a' + n % 26));
  return s;
}

// A real kill -9 at an arbitrary instant of a loop of large saves (each a
// few hundred microseconds of copying): what is read back afterwards is
// always one complete save, the last one the child finished or the one it
// was writing.
TEST(SlotFile, AKillNineAtAnyInstantLeavesTheNewestCompleteSave) {
  test::TempDir dir;
  const auto path = path_in(dir);
  std::mt19937 rng(20261203);
  for (int round = 0; round < 20; ++round) {
    const auto killed = test::kill_nine_during(
        [&](const auto& report) {
          auto file = SlotFile::open(path);
          if (!file.ok()) ::_exit(2);
          auto first = SlotFile::read(path);
          std::int64_t n = first.ok() ? std::stoll(first->substr(0, first->find(':'))) : 0;
          for (;;) {
            ++n;
            if (file->save(save_number(static_cast<std::uint64_t>(n)))) ::_exit(3);
            report(n);
          }
        },
        std::chrono::microseconds(3000), rng);
    ASSERT_EQ(killed.problem, "");
    const auto acked = static_cast<std::uint64_t>(killed.last_reported);

    const std::string text = read_ok(path);
    const std::uint64_t got = std::stoull(text.substr(0, text.find(':')));
    EXPECT_TRUE(got == acked || got == acked + 1)
        << "round " << round << ": read save " << got << ", the child had finished " << acked;
    EXPECT_EQ(text, save_number(got)) << "round " << round << ": save " << got << " is not whole";
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
