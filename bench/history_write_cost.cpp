// What the history writes per drive-poll, without a daemon: ticks of N
// drives committed through SqliteStore as the history writer commits them
// (one transaction a tick, real fsyncs), then this process's write_bytes
// (/proc/self/io: page-granular, WAL and checkpoints included) per
// drive-poll. The store's settings are arguments, so each one's effect is
// measured alone; the daemon's own figure is bench/store_cost.py's.
//
//   nvmond_history_write_cost DIR [drives=64] [ticks=1200] [log_rows_per_drive]
//                             [wal_autocheckpoint_bytes] [page_size]
// (the last three default to the daemon's SqliteOptions)
#include <fmt/core.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/sqlite_store.hpp"

namespace {

long long write_bytes() {
  std::ifstream io("/proc/self/io");
  std::string key;
  long long value = 0;
  while (io >> key >> value) {
    if (key == "write_bytes:") return value;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nvmond;
  if (argc < 2) {
    fmt::print(stderr,
               "usage: {} DIR [drives] [ticks] [log_rows_per_drive] [wal_autocheckpoint_bytes] [page_size] "
               "\n",
               argv[0]);
    return 2;
  }
  auto arg = [&](int i, long long def) { return argc > i ? std::atoll(argv[i]) : def; };
  const std::string dir = argv[1];
  const int drives = static_cast<int>(arg(2, 64));
  const int ticks = static_cast<int>(arg(3, 1200));
  SqliteOptions options;
  // Unless given, the daemon's own settings.
  options.log_rows_per_drive = static_cast<std::size_t>(arg(4, static_cast<long long>(options.log_rows_per_drive)));
  options.wal_autocheckpoint_bytes = static_cast<int>(arg(5, options.wal_autocheckpoint_bytes));
  options.page_size = static_cast<int>(arg(6, options.page_size));
  std::filesystem::remove_all(dir);
  auto opened = SqliteStore::open(dir, options);
  if (!opened) {
    fmt::print(stderr, "{}\n", opened.error().message);
    return 1;
  }
  auto& store = **opened;
  const WallTime t0 = WallTime{} + std::chrono::hours(24 * 365 * 56);
  auto tick = [&](int k) {
    std::vector<PollRecord> records;
    for (int i = 0; i < drives; ++i) {
      SampleRecord s;
      s.time = t0 + std::chrono::seconds(k);
      s.data_units_written = (u128{1} << 36) + static_cast<u128>(k) * 97 + static_cast<u128>(i);
      s.data_units_read = (u128{1} << 35) + static_cast<u128>(k) * 13;
      s.power_on_hours = 20000 + static_cast<u128>(k / 3600);
      s.percentage_used = 4;
      s.composite_temperature_k = static_cast<std::uint16_t>(310 + (k / 60 + i) % 5);
      s.media_bytes_written = (u128{1} << 48) + static_cast<u128>(k) * 97 * 512000;
      records.push_back({DriveKey{fmt::format("COST-{:03}", i), "Model C"}, {s}, {}, {}});
    }
    return store.commit_all(records);
  };
  // A history of a few minutes per drive first, so the tables are past their first pages.
  const int warm = static_cast<int>(options.log_rows_per_drive) + 60;
  for (int k = 0; k < warm; ++k) {
    if (auto r = tick(k); !r) return fmt::print(stderr, "{}\n", r.error().message), 1;
  }
  const long long before = write_bytes();
  for (int k = warm; k < warm + ticks; ++k) {
    if (auto r = tick(k); !r) return fmt::print(stderr, "{}\n", r.error().message), 1;
  }
  const long long after = write_bytes();
  const double per = static_cast<double>(after - before) / (static_cast<double>(drives) * ticks);
  fmt::print("{} drives, {} ticks, log {} per drive, wal_autocheckpoint {} B, page_size {}: {:.0f} B per drive-poll\n",
             drives, ticks, options.log_rows_per_drive, options.wal_autocheckpoint_bytes, options.page_size, per);
  return 0;
}
