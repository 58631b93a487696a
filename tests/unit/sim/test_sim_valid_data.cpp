// The drive model's garbage collection works on the data its LBAs hold:
// unwritten and deallocated LBAs are spare, a purge leaves none valid, and
// the map survives a saved state.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/drive_model.hpp"
#include "sim_test_util.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::uint64_t kCapacity = 64'000'000;
constexpr std::uint64_t kSeq = 128 * 1024;

// 180k IOPS FOB, 40k steady at WAF 2.5: the factory spare is a quarter of
// the capacity.
SimDriveSpec small_dc() {
  SimDriveSpec s = test::named("datacenter");
  s.capacity_bytes = kCapacity;
  return s;
}

double random_write_iops(const DriveModel& m) { return 1.0 / seconds(m.service_time(IoOp::write, 4096, false)); }

// Sequential 128 KiB writes of at least `bytes` over `range` from its start.
void precondition(DriveModel& m, LbaRange range, std::uint64_t bytes) {
  m.io_batch_sequential(IoOp::write, kSeq, (bytes + kSeq - 1) / kSeq, range, range.lo);
}

TEST(SimValidData, APrefixLeavesTheRestOfTheDriveAsSpareUntilRandomWritesFillIt) {
  ManualClock clock;
  DriveModel full(small_dc(), clock.wall());
  DriveModel prefix(small_dc(), clock.wall());
  // The same bytes written: twice the drive, or four times its first half.
  precondition(full, {0, kCapacity}, 2 * kCapacity);
  precondition(prefix, {0, kCapacity / 2}, 2 * kCapacity);
  EXPECT_NEAR(full.valid_share({0, kCapacity}), 1.0, 1e-9);
  EXPECT_NEAR(prefix.valid_share({0, kCapacity}), 0.5, 1e-9);
  EXPECT_NEAR(random_write_iops(full), 40'000, 100);
  // rho = (1.25 - 0.5) / 0.5: A = 1, 2.5 times the full drive's IOPS.
  EXPECT_NEAR(random_write_iops(prefix), 100'000, 250);
  // Random writes over the whole drive fill the rest and the difference goes.
  const DriveModel::RandomZone whole[] = {{{0, kCapacity}, 1.0}};
  prefix.io_batch_random(IoOp::write, 4096, 8 * kCapacity / 4096, whole);
  EXPECT_NEAR(prefix.valid_share({0, kCapacity}), 1 - 0.5 * std::exp(-8.0), 1e-9);
  EXPECT_NEAR(random_write_iops(prefix), 40'000, 0.01 * 40'000);
}

TEST(SimValidData, RandomWritesFromFobApproachTheProfilesSteadyStateAsTheyFillTheDrive) {
  ManualClock clock;
  DriveModel m(small_dc(), clock.wall());
  const DriveModel::RandomZone whole[] = {{{0, kCapacity}, 1.0}};
  m.io_batch_random(IoOp::write, 4096, 2 * kCapacity / 4096, whole);
  const double at_two = random_write_iops(m);  // 1 - 1/e^2 of the LBAs valid
  m.io_batch_random(IoOp::write, 4096, 4 * kCapacity / 4096, whole);
  const double at_six = random_write_iops(m);
  EXPECT_GT(at_two, at_six);
  EXPECT_LT(at_two, 180'000);
  EXPECT_NEAR(at_six, 40'000, 0.02 * 40'000);
}

TEST(SimValidData, DeallocatedLbasAreSpareAndAPurgeLeavesNothingValid) {
  ManualClock clock;
  DriveModel m(small_dc(), clock.wall());
  precondition(m, {0, kCapacity}, 2 * kCapacity);
  const double before = random_write_iops(m);
  m.deallocate({0, kCapacity / 2});
  EXPECT_NEAR(m.valid_share({0, kCapacity}), 0.5, 1e-9);
  EXPECT_GT(random_write_iops(m), 2 * before);
  m.purge();
  EXPECT_DOUBLE_EQ(m.valid_share({0, kCapacity}), 0.0);
}

TEST(SimValidData, ASequentialStreamWrapsInItsRange) {
  ManualClock clock;
  DriveModel m(small_dc(), clock.wall());
  const LbaRange range{0, kCapacity / 2};
  // 8 MB from 4 MB before the range's end: its last 4 MB and its first 4 MB.
  m.io_batch_sequential(IoOp::write, kSeq, 64, range, range.hi - 4 * kSeq * 8);
  // Where it starts inside a chunk, the map spreads that chunk's part evenly.
  EXPECT_NEAR(m.valid_share({range.hi - 4'194'304, range.hi}), 1.0, 0.02);
  EXPECT_NEAR(m.valid_share({0, 4'194'304}), 1.0, 1e-9);
  EXPECT_NEAR(m.valid_share({0, kCapacity}), 8'388'608.0 / kCapacity, 1e-9);
}

TEST(SimValidData, ASavedStateKeepsTheMap) {
  ManualClock clock;
  DriveModel m(small_dc(), clock.wall());
  precondition(m, {0, kCapacity}, 2 * kCapacity);
  m.deallocate({0, kCapacity / 3});
  const std::string state = m.save_state();
  DriveModel back(small_dc(), clock.wall());
  ASSERT_FALSE(back.load_state(state));
  EXPECT_DOUBLE_EQ(back.valid_share({0, kCapacity}), m.valid_share({0, kCapacity}));
  EXPECT_EQ(back.service_time(IoOp::write, 4096, false), m.service_time(IoOp::write, 4096, false));
  EXPECT_LT(state.size(), 2000u);  // a few runs of chunks, not per-LBA data
}

// States saved before the map: the span the old model knew, else the whole
// drive; nothing when nothing was written since the purge.
TEST(SimValidData, AStateWithoutAMapAssumesWhatTheOldModelDid) {
  ManualClock clock;
  DriveModel saved(small_dc(), clock.wall());
  auto old_state = [&](std::uint64_t written, std::uint64_t lo, std::uint64_t hi) {
    auto j = nlohmann::json::parse(saved.save_state());
    j.erase("valid_data");
    j["physical"]["written_since_purge"] = std::to_string(written);
    j["physical"]["span_lo"] = lo;
    j["physical"]["span_hi"] = hi;
    return j.dump();
  };
  DriveModel m(small_dc(), clock.wall());
  ASSERT_FALSE(m.load_state(old_state(2 * kCapacity, 0, kCapacity / 4)));
  EXPECT_NEAR(m.valid_share({0, kCapacity}), 0.25, 1e-9);
  ASSERT_FALSE(m.load_state(old_state(2 * kCapacity, 0, 0)));
  EXPECT_DOUBLE_EQ(m.valid_share({0, kCapacity}), 1.0);
  ASSERT_FALSE(m.load_state(old_state(0, 0, 0)));
  EXPECT_DOUBLE_EQ(m.valid_share({0, kCapacity}), 0.0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

double media_bytes(const DriveModel& m) { return to_double(m.ocp()->physical_media_units_written); }

// PTS HIR: a drive in steady state left idle collects garbage in the
// background. The room it makes takes host writes at the FOB rate and
// without foreground copies, and the copies it made while idle are media
// writes all the same.
TEST(SimIdleGc, IdleTimeMakesRoomForFobSpeedWritesWhoseCopiesWereMadeWhileIdle) {
  ManualClock clock;
  DriveModel m(small_dc(), clock.wall());
  precondition(m, {0, kCapacity}, 2 * kCapacity);  // every LBA valid, past the cliff
  ASSERT_NEAR(random_write_iops(m), 40'000, 100);
  const double before = media_bytes(m);
  // 50 ms of idle after the 1 s the collection waits for: room for 50 ms of
  // steady-state writes, 40k x 4 KiB x 0.05 (of the 16 MB spare).
  clock.advance(std::chrono::milliseconds(1050));
  m.idle_to(clock.wall());
  const double room = 40'000 * 4096 * 0.05;
  EXPECT_NEAR(m.idle_gc_reserve_bytes(), room, 0.01 * room);
  // Each freed byte cost A - 1 = 1.5 bytes of copies.
  EXPECT_NEAR(media_bytes(m) - before, 1.5 * room, 0.01 * room);
  EXPECT_NEAR(random_write_iops(m), 180'000, 500);
  // Those writes cost no further copies; then the foreground collection is back.
  const auto n = static_cast<std::uint64_t>(room / 4096);
  const double host_before = media_bytes(m);
  const DriveModel::RandomZone whole[] = {{{0, kCapacity}, 1.0}};
  const Duration took = m.io_batch_random(IoOp::write, 4096, n, whole);
  EXPECT_NEAR(seconds(took), static_cast<double>(n) / 180'000, 1e-4);
  EXPECT_NEAR(media_bytes(m) - host_before, static_cast<double>(n) * 4096, 4096);
  EXPECT_NEAR(random_write_iops(m), 40'000, 100);
}

TEST(SimIdleGc, ALongIdleFreesAtMostTheSpareAndAFreshDriveHasNothingToCollect) {
  ManualClock clock;
  DriveModel steady(small_dc(), clock.wall());
  DriveModel fresh(small_dc(), clock.wall());
  precondition(steady, {0, kCapacity}, 2 * kCapacity);
  // An hour between two advances is not a declared host idle (under an
  // accelerated clock it stands for the milliseconds between two rounds):
  // nothing is collected.
  clock.advance(std::chrono::hours(1));
  steady.advance_to(clock.wall());
  EXPECT_EQ(steady.idle_gc_reserve_bytes(), 0.0);
  clock.advance(std::chrono::hours(1));
  steady.idle_to(clock.wall());
  fresh.idle_to(clock.wall());
  // Physical 1.25 x the capacity, all of it valid: a quarter of the capacity is spare.
  EXPECT_NEAR(steady.idle_gc_reserve_bytes(), 0.25 * kCapacity, 0.001 * kCapacity);
  EXPECT_EQ(fresh.idle_gc_reserve_bytes(), 0.0);
  // A purge takes the room with it, as it takes the rest of the FTL state.
  steady.purge();
  EXPECT_EQ(steady.idle_gc_reserve_bytes(), 0.0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
