// A test's parameters validated once, without a target, into typed values:
// each type's good value, wrong type and out-of-range value, unknown keys and
// tests, and TOML's own types kept as they are.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "pts/catalog.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;

std::string error_of(const std::string& test, const GivenParams& given) {
  try {
    validate_typed(test, given);
  } catch (const ParamError& e) {
    return e.what();
  }
  return "(accepted)";
}

template <typename T>
T value_of(const std::string& test, const std::string& key, const GivenValue& given) {
  return std::get<T>(validate_typed(test, {{key, given}}).values.at(key));
}

TEST(TestRequest, IntegersAreTakenFromTomlOrTextAndCheckedAgainstTheirRange) {
  EXPECT_EQ(value_of<std::int64_t>("wsat", "rounds", std::int64_t{30}), 30);
  EXPECT_EQ(value_of<std::int64_t>("wsat", "rounds", std::string("30")), 30);
  EXPECT_THAT(error_of("wsat", {{"rounds", 1.5}}), HasSubstr("parameter rounds=1.5: not an integer"));
  EXPECT_THAT(error_of("wsat", {{"rounds", 2.0}}), HasSubstr("rounds=2: not an integer"));
  EXPECT_THAT(error_of("wsat", {{"rounds", std::string("many")}}), HasSubstr("rounds=many: not an integer"));
  EXPECT_THAT(error_of("wsat", {{"rounds", std::int64_t{0}}}), HasSubstr("rounds=0: must be in 1..1000000"));
  EXPECT_THAT(error_of("wsat", {{"rounds", std::string("99999999999999999999")}}), HasSubstr("not an integer"));
}

TEST(TestRequest, NumbersAcceptIntegersAndRefuseBooleansAndValuesOutOfRange) {
  EXPECT_EQ(value_of<double>("wsat", "range", 0.5), 0.5);
  EXPECT_EQ(value_of<double>("wsat", "range", std::int64_t{1}), 1.0);
  EXPECT_EQ(value_of<double>("wsat", "range", std::string("0.25")), 0.25);
  EXPECT_THAT(error_of("wsat", {{"range", true}}), HasSubstr("range=true: not a number"));
  EXPECT_THAT(error_of("wsat", {{"range", std::string("half")}}), HasSubstr("range=half: not a number"));
  EXPECT_THAT(error_of("wsat", {{"range", 2.0}}), HasSubstr("range=2: must be in 0.01..1"));
}

TEST(TestRequest, BooleansAreTomlBooleansOrTheirWords) {
  EXPECT_TRUE(value_of<bool>("wsat", "purge", true));
  EXPECT_FALSE(value_of<bool>("wsat", "purge", std::string("no")));
  EXPECT_THAT(error_of("wsat", {{"purge", std::int64_t{1}}}), HasSubstr("purge=1: not a boolean"));
  EXPECT_THAT(error_of("wsat", {{"purge", std::string("maybe")}}), HasSubstr("purge=maybe: not a boolean"));
}

TEST(TestRequest, SizesKeepATomlIntegerExactBeyondTheDoublesPrecision) {
  EXPECT_EQ(value_of<std::uint64_t>("wsat", "bs", std::string("4KiB")), 4096U);
  // 2^53 + 1: read through a double (as a size's text is) it would be 2^53.
  EXPECT_EQ(value_of<std::uint64_t>("wsat", "bs", std::int64_t{9'007'199'254'740'993}), 9'007'199'254'740'993U);
  EXPECT_THAT(error_of("wsat", {{"bs", std::int64_t{-4}}}), HasSubstr("bs=-4: not a size"));
  EXPECT_THAT(error_of("wsat", {{"bs", true}}), HasSubstr("bs=true: not a size"));
}

TEST(TestRequest, DurationsAreParsedAndMustBePositive) {
  EXPECT_EQ(value_of<Duration>("wsat", "round", std::string("5m")), std::chrono::minutes(5));
  EXPECT_THAT(error_of("wsat", {{"round", std::string("soon")}}), HasSubstr("round=soon: not a duration"));
  EXPECT_THAT(error_of("wsat", {{"round", std::string("0s")}}), HasSubstr("round=0: must be positive"));
  EXPECT_THAT(error_of("wsat", {{"round", false}}), HasSubstr("not a duration"));
}

TEST(TestRequest, SizeListsAreCommaSeparatedPositiveSizes) {
  EXPECT_EQ(value_of<std::vector<std::uint64_t>>("iops", "block_sizes", std::string("4KiB, 8KiB")),
            (std::vector<std::uint64_t>{4096, 8192}));
  EXPECT_THAT(error_of("iops", {{"block_sizes", std::string("4KiB,0")}}), HasSubstr("not a list of sizes"));
  EXPECT_THAT(error_of("iops", {{"block_sizes", std::string(",")}}), HasSubstr("empty list"));
  EXPECT_THAT(error_of("iops", {{"block_sizes", true}}), HasSubstr("not a list of sizes"));
}

TEST(TestRequest, IntegerListsAreCheckedItemByItem) {
  EXPECT_EQ(value_of<std::vector<std::int64_t>>("iops", "read_pcts", std::string("0,100")),
            (std::vector<std::int64_t>{0, 100}));
  EXPECT_EQ(value_of<std::vector<std::int64_t>>("iops", "read_pcts", std::int64_t{65}),
            (std::vector<std::int64_t>{65}));
  EXPECT_THAT(error_of("iops", {{"read_pcts", std::string("50,101")}}), HasSubstr("a value above 100"));
  EXPECT_THAT(error_of("iops", {{"read_pcts", std::string("-1")}}), HasSubstr("negative value"));
  EXPECT_THAT(error_of("iops", {{"read_pcts", std::string("1,x")}}), HasSubstr("read_pcts=x: not an integer"));
  EXPECT_THAT(error_of("iops", {{"read_pcts", 0.5}}), HasSubstr("not an integer"));
}

TEST(TestRequest, ChoicesAreOneOfTheAllowedTexts) {
  EXPECT_EQ(value_of<std::string>("qos", "quantile", std::string("0.99")), "0.99");
  EXPECT_EQ(value_of<std::string>("qos", "quantile", 0.9999), "0.9999");
  EXPECT_THAT(error_of("qos", {{"quantile", std::string("0.95")}}),
              HasSubstr("quantile=0.95: must be one of 0.5,0.9,0.99,0.999,0.9999"));
}

TEST(TestRequest, AnUnknownKeyListsTheKeysTheTestKnows) {
  const std::string e = error_of("wsat", {{"treads", std::int64_t{4}}});
  EXPECT_THAT(e, HasSubstr("test wsat has no parameter \"treads\""));
  EXPECT_THAT(e, HasSubstr("it knows: bs,capacity_multiple,max_rounds,precondition,purge,queue_depth,range"));
  EXPECT_THAT(error_of("purge", {{"rounds", std::int64_t{1}}}), HasSubstr("(it knows: none)"));
}

TEST(TestRequest, AnUnknownTestListsTheKnownOnes) {
  EXPECT_THAT(error_of("wsatt", {}), HasSubstr("unknown test \"wsatt\" (known: purge, precondition, iops"));
}

TEST(TestRequest, ASteadyStateRoundLimitBelowTheWindowIsRefusedWithoutATarget) {
  EXPECT_THAT(error_of("iops", {{"max_rounds", std::int64_t{3}}}),
              HasSubstr("max_rounds must be 0 (fixed length) or at least the window"));
  EXPECT_THAT(error_of("iops", {{"max_rounds", std::int64_t{4}}, {"window", std::int64_t{4}}}), "(accepted)");
  EXPECT_THAT(error_of("iops", {{"max_rounds", std::int64_t{0}}}), "(accepted)");
}

TEST(TestRequest, TheCanonicalTextIsWhatARunRecords) {
  const TestRequest r = validate("wsat", {{"round", "5m"}, {"bs", "4KiB"}, {"range", "0.5"}, {"purge", "yes"}});
  EXPECT_EQ(r.text(), (ParamMap{{"bs", "4096"}, {"purge", "true"}, {"range", "0.5"}, {"round", "300s"}}));
}

// A [[soak]]'s request reaches its run as this text: it must validate back
// to the very same values.
TEST(TestRequest, TheCanonicalTextValidatesBackToTheSameRequest) {
  const TestRequest wsat = validate_typed("wsat", {{"bs", std::int64_t{9'007'199'254'740'993}},
                                                   {"range", 0.1 + 0.2},
                                                   {"round", std::string("1500ms")},
                                                   {"rounds", std::int64_t{999'999}}});
  EXPECT_EQ(validate("wsat", wsat.text()).values, wsat.values);
  const TestRequest latency = validate(
      "latency", {{"block_sizes", "0.5KiB,4KiB"}, {"sweep", "true"}, {"sweep_threads", "1,3"}, {"read_pcts", "70"}});
  EXPECT_EQ(validate("latency", latency.text()).values, latency.values);
}

TEST(TestSchema, EveryDefaultHasItsKeysTypeAndPassesItsOwnChecks) {
  for (const auto& schema : test_schemas()) {
    for (const auto& spec : schema.params) {
      if (!spec.def) continue;  // taken from the target
      EXPECT_EQ(spec.def->index(), static_cast<std::size_t>(spec.type)) << schema.test << "." << spec.key;
      EXPECT_NO_THROW(check_value(spec, *spec.def)) << schema.test << "." << spec.key;
      EXPECT_FALSE(spec.help.empty()) << schema.test << "." << spec.key;
    }
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
