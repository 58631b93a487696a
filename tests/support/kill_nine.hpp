#pragma once
// A real kill -9 at an arbitrary instant of a writer: the writer runs in a
// forked child and reports each step it finished; the parent waits for the
// first report, kills the child with SIGKILL after a random delay, and
// returns the last step the child reported. What a test then reads back
// must hold that step (and may hold the one in flight).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>

namespace nvmond::test {

struct KillNine {
  std::int64_t last_reported = -1;
  std::string problem;  // empty when the child was killed as planned
};

// `writer(report)` runs in the child and must not return; report(n) tells
// the parent step n is done. The child leaves by _exit (never by return or
// exception, which would run the parent's test in the child).
inline KillNine kill_nine_during(const std::function<void(const std::function<void(std::int64_t)>&)>& writer,
                                 std::chrono::microseconds max_delay, std::mt19937& rng) {
  KillNine out;
  int acks[2];
  if (::pipe(acks) != 0) return {-1, "pipe failed"};
  const pid_t child = ::fork();
  if (child < 0) return {-1, "fork failed"};
  if (child == 0) {
    ::close(acks[0]);
    writer([&](std::int64_t n) {
      if (::write(acks[1], &n, sizeof n) != sizeof n) ::_exit(4);
    });
    ::_exit(5);
  }
  ::close(acks[1]);
  std::int64_t n = 0;
  if (::read(acks[0], &n, sizeof n) == static_cast<ssize_t>(sizeof n)) {
    out.last_reported = n;
    ::usleep(static_cast<useconds_t>(std::uniform_int_distribution<std::int64_t>(0, max_delay.count())(rng)));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFSIGNALED(status)) out.problem = "the writer ended by itself: status " + std::to_string(status);
  while (::read(acks[0], &n, sizeof n) == static_cast<ssize_t>(sizeof n)) out.last_reported = n;
  ::close(acks[0]);
  if (out.last_reported < 0 && out.problem.empty()) out.problem = "the writer reported nothing";
  return out;
}

}  // namespace nvmond::test
