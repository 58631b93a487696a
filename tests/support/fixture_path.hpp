#pragma once
// A file under tests/fixtures (NVMOND_FIXTURES, the checkout's own path).
#include <string>
#include <string_view>

namespace nvmond::test {

// Appended rather than `std::string(NVMOND_FIXTURES) + "/x/" + name`: with
// the tests' precompiled header, GCC 12 at -O2 reports that form as an
// out-of-bounds copy (-Warray-bounds, a false positive) once the checkout's
// path is longer than a short string's buffer, as in a fresh clone under
// /var/tmp.
inline std::string fixture_path(std::string_view relative) {
  std::string path = NVMOND_FIXTURES;
  path += '/';
  path += relative;
  return path;
}

}  // namespace nvmond::test
