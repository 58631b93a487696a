#pragma once
// What each test that is not a PTS test rests on, by test name ("slc": "the
// reviews' SLC-cache fill: ..."). The tests declare it (pts/catalog.hpp,
// test_bases()); the report, which does not link the tests, is given it by
// whoever renders one, so that a test of its own file needs no entry here.
#include <map>
#include <string>

namespace nvmond::report {

using TestBases = std::map<std::string, std::string>;

}  // namespace nvmond::report
