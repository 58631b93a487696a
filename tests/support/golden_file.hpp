#pragma once
// Golden files (tests/fixtures/golden): a rendered text compared byte for byte
// with its checked-in file, the failure showing `diff -u` of the two, and one
// switch to rewrite the files after an intended change, to be reviewed as a
// diff:
//   NVMOND_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/temp_dir.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond::test {

inline std::string golden_path(const std::string& name) { return fixture_path("golden/" + name); }

inline std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// What `command` (run by sh, stderr joined) printed, and its wait status.
inline std::string command_output(const std::string& command, int* status) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    *status = -1;
    return "popen failed: " + command;
  }
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  *status = ::pclose(p);
  return out;
}

// The first line where `want` and `got` differ, both sides.
inline std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream w(want), g(got);
  std::string lw, lg;
  for (int line = 1;; ++line) {
    bool more_w = static_cast<bool>(std::getline(w, lw));
    bool more_g = static_cast<bool>(std::getline(g, lg));
    if (!more_w && !more_g) return "(identical)";
    if (!more_w) lw = "(end of file)";
    if (!more_g) lg = "(end of output)";
    if (lw != lg || !more_w || !more_g) {
      return "line " + std::to_string(line) + "\n  golden:   " + lw + "\n  rendered: " + lg;
    }
  }
}

// `diff -u` of the golden file and `got` (its first 200 lines), or the first
// differing line where diff cannot run.
inline std::string golden_diff(const std::string& path, const std::string& want, const std::string& got) {
  TempDir dir("nvmond-golden-diff");
  const std::string rendered = dir.path() + "/rendered";
  std::ofstream(rendered, std::ios::binary) << got;
  int status = 0;
  const std::string diff = command_output(
      "diff -u --label '" + path + "' --label rendered '" + path + "' '" + rendered + "' | head -n 200", &status);
  if (diff.rfind("--- ", 0) != 0) return first_difference(want, got);
  return diff;
}

// Expects `text` to equal the golden file `name` byte for byte; with
// NVMOND_UPDATE_GOLDEN=1 writes it there instead.
inline void expect_golden_text(const std::string& name, const std::string& text) {
  const std::string path = golden_path(name);
  const char* update = std::getenv("NVMOND_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    std::printf("rewrote %s\n", path.c_str());
    return;
  }
  const std::string golden = file_text(path);
  ASSERT_FALSE(golden.empty()) << path << " is missing; NVMOND_UPDATE_GOLDEN=1 writes it";
  EXPECT_TRUE(golden == text) << name << " differs from what was rendered:\n"
                              << golden_diff(path, golden, text)
                              << "\nIf the change is intended: NVMOND_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden,"
                                 " then review the golden file's diff";
}

}  // namespace nvmond::test
