#include "pts/catalog.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>

#include "pts/tests/definition.hpp"

namespace nvmond {

namespace {

std::vector<std::string> names_of(const std::vector<TestSchema>& schemas) {
  std::vector<std::string> n;
  for (const auto& s : schemas) n.push_back(s.test);
  return n;
}

}  // namespace

const std::vector<TestSchema>& test_schemas() {
  static const std::vector<TestSchema> schemas = [] {
    std::vector<TestSchema> out;
    for (const auto& d : test_definitions()) out.push_back(d.schema);
    return out;
  }();
  return schemas;
}

const std::vector<TestSchema>& test_schemas(PtsProfile profile) {
  if (profile == PtsProfile::enterprise) return test_schemas();
  static const std::vector<TestSchema> client = [] {
    std::vector<TestSchema> out;
    for (const auto& s : test_schemas()) {
      if (auto c = profile_schema(s, PtsProfile::client)) out.push_back(std::move(*c));
    }
    return out;
  }();
  return client;
}

const std::vector<std::string>& test_names() {
  static const std::vector<std::string> names = names_of(test_schemas());
  return names;
}

const std::vector<std::string>& test_names(PtsProfile profile) {
  if (profile == PtsProfile::enterprise) return test_names();
  static const std::vector<std::string> client = names_of(test_schemas(PtsProfile::client));
  return client;
}

const TestSchema& test_schema(const std::string& test, PtsProfile profile) {
  for (const auto& s : test_schemas(profile)) {
    if (s.test == test) return s;
  }
  const bool known = std::find(test_names().begin(), test_names().end(), test) != test_names().end();
  if (known) {
    const ProfileSpec& p = profile_spec(profile);
    throw ParamError(fmt::format("test {} is not a test of the {} profile ({}; its tests: {})", test, p.name,
                                 p.standard, fmt::join(test_names(profile), ", ")));
  }
  throw ParamError(fmt::format("unknown test \"{}\" (known: {})", test, fmt::join(test_names(), ", ")));
}

TestRequest validate_typed(const std::string& test, const GivenParams& given, PtsProfile profile) {
  return validate_typed(test_schema(test, profile), given, profile);
}

TestRequest validate(const std::string& test, const ParamMap& given, PtsProfile profile) {
  GivenParams typed;
  for (const auto& [k, v] : given) typed.emplace(k, v);
  return validate_typed(test, typed, profile);
}

void check_request(const TestRequest& request) { check_request(test_schema(request.test, request.profile), request); }

const std::map<std::string, std::string>& test_bases() {
  static const std::map<std::string, std::string> bases = [] {
    std::map<std::string, std::string> out;
    for (const auto& s : test_schemas()) {
      if (!s.basis.empty()) out.emplace(s.test, s.basis);
    }
    return out;
  }();
  return bases;
}

}  // namespace nvmond
