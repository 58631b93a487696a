// CPU time of one SlotFile::save of a simulated drive's state (3000 bytes,
// about what a drive's model saves after each poll), user and system apart:
//   nvmond_slot_file_save_cost [PATH]   (default: ./slot_file_save_cost.slots)
// Each poll of a simulated drive makes one save; bench/RESULTS.md compares
// the result with the CPU time of a whole drive-poll.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "core/slot_file.hpp"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "slot_file_save_cost.slots";
  ::unlink(path.c_str());
  auto file = nvmond::SlotFile::open(path);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.error().message.c_str());
    return 1;
  }
  std::string state(3000, 'x');
  constexpr int kSaves = 200000;
  rusage before{}, after{};
  ::getrusage(RUSAGE_SELF, &before);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kSaves; ++i) {
    state[static_cast<std::size_t>(i) % state.size()] = static_cast<char>('a' + i % 26);
    if (auto err = file->save(state)) {
      std::fprintf(stderr, "%s\n", err->message.c_str());
      return 1;
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  ::getrusage(RUSAGE_SELF, &after);
  auto us = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec); };
  std::printf("per save: wall %.2f us, user %.2f us, system %.2f us\n",
              std::chrono::duration<double, std::micro>(t1 - t0).count() / kSaves,
              (us(after.ru_utime) - us(before.ru_utime)) / kSaves, (us(after.ru_stime) - us(before.ru_stime)) / kSaves);
  ::unlink(path.c_str());
  return 0;
}
