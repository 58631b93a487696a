#pragma once
// The tests by name: their schemas as the definitions in pts/tests/ give
// them, and a request validated against its test's. What takes a test's
// name from an operator (the configuration, the control socket, nvmonctl)
// or shows what a test rests on (the report's caller) reads it here.
#include <map>
#include <string>
#include <vector>

#include "runmodel/request.hpp"

namespace nvmond {

// Every test, in documentation order.
const std::vector<TestSchema>& test_schemas();
const std::vector<std::string>& test_names();
// The tests of `profile`, with the defaults its specification sets (active
// range, load); enterprise: test_schemas().
const std::vector<TestSchema>& test_schemas(PtsProfile profile);
const std::vector<std::string>& test_names(PtsProfile profile);
// Throws ParamError for an unknown test, listing the known ones, and for a
// test the profile does not have, listing the profile's.
const TestSchema& test_schema(const std::string& test, PtsProfile profile = PtsProfile::enterprise);

// Throw ParamError for an unknown test, an unknown key (listing the keys
// the test knows), a value of the wrong type or out of its range.
TestRequest validate(const std::string& test, const ParamMap& given, PtsProfile profile = PtsProfile::enterprise);
TestRequest validate_typed(const std::string& test, const GivenParams& given,
                           PtsProfile profile = PtsProfile::enterprise);
// The same checks of a request already typed (one a caller assembled rather
// than validate() made): a known test, known keys, values of their key's
// type and in range, of a test its profile has. Throws ParamError.
void check_request(const TestRequest& request);

// What each test that is not a PTS test rests on, by name (the report's
// "not a PTS test: ..."); the PTS's tests are not in it.
const std::map<std::string, std::string>& test_bases();

}  // namespace nvmond
