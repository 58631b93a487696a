#pragma once
// A file under tests/fixtures, found from the test executable's own folder.
#include <filesystem>
#include <string>
#include <string_view>

namespace nvmond::test {

// NVMOND_FIXTURES_FROM_EXE is tests/fixtures relative to the folder the test
// executables are built in (tests/CMakeLists.txt), the same in every clone.
// An absolute path compiled in made each test unit's command line differ
// between clones, so a clone in another folder found none of them in ccache.
// Appended rather than summed with operator+: with the tests' precompiled
// header GCC 12 at -O2 reports that form as an out-of-bounds copy
// (-Warray-bounds, a false positive) once the path outgrows a short string.
inline std::string fixture_path(std::string_view relative) {
  static const std::filesystem::path root =
      (std::filesystem::read_symlink("/proc/self/exe").parent_path() / NVMOND_FIXTURES_FROM_EXE).lexically_normal();
  std::string path = root.string();
  path += '/';
  path += relative;
  return path;
}

}  // namespace nvmond::test
