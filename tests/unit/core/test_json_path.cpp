#include <gtest/gtest.h>

#include <cmath>

#include "core/json_path.hpp"

namespace nvmond::json_keys {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

std::string error_of(const auto& read) {
  try {
    read();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JsonPath, ARequiredFieldNamesItsWholePathWhenMissingOrOfTheWrongType) {
  const json j = json::parse(R"({"target": {"capacity_bytes": -1}, "rounds": [{"ops": 3}, {}]})");
  const Path root{j, ""};
  EXPECT_EQ(error_of([&] { root.at("target").at("capacity_bytes").as<std::uint64_t>(); }),
            "target.capacity_bytes: expected an unsigned integer");
  EXPECT_EQ(error_of([&] { root.at("rounds").at(1).at("ops"); }), "rounds[1].ops: missing");
  EXPECT_EQ(error_of([&] { root.at("rounds").at(2); }), "rounds: no element 2");
  EXPECT_EQ(error_of([&] { root.at("target").array(); }), "target: expected an array");
  EXPECT_EQ(error_of([&] { root.at("rounds").at(std::size_t{0}).at("ops").at("read"); }),
            "rounds[0].ops: expected an object");
  EXPECT_EQ(error_of([&] { Path{json(3), ""}.at("x"); }), "(top level): expected an object");
  EXPECT_EQ(root.at("rounds").at(std::size_t{0}).at("ops").as<int>(), 3);
}

TEST(JsonPath, AnOptionalFieldReadsAbsentAndNullAsNotThereButStillChecksItsType) {
  const json j = json::parse(R"({"n": 2.5, "inf": null, "s": "x", "b": true, "o": {"k": 1}, "a": [1, 2],
                                 "wrong_n": "2", "wrong_o": [], "wrong_a": {}})");
  const Path root{j, ""};
  EXPECT_EQ(root.number("n"), 2.5);
  EXPECT_TRUE(std::isnan(root.number("inf")));
  EXPECT_TRUE(std::isnan(root.number("nothing")));
  EXPECT_EQ(root.text("s"), "x");
  EXPECT_EQ(root.text("nothing"), "");
  EXPECT_TRUE(root.flag("b"));
  EXPECT_FALSE(root.flag("nothing"));
  ASSERT_TRUE(root.object("o"));
  EXPECT_EQ(root.object("o")->path, "o");
  EXPECT_FALSE(root.object("nothing"));
  ASSERT_EQ(root.array("a").size(), 2u);
  EXPECT_EQ(root.array("a")[1].path, "a[1]");
  EXPECT_TRUE(root.array("nothing").empty());
  EXPECT_EQ(error_of([&] { root.number("wrong_n"); }), "wrong_n: expected a number");
  EXPECT_EQ(error_of([&] { root.object("wrong_o"); }), "wrong_o: expected an object");
  EXPECT_EQ(error_of([&] { root.array("wrong_a"); }), "wrong_a: expected an array");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::json_keys
