#include <gtest/gtest.h>

#include <vector>

#include "pts/steady_state.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

SteadyStateRule rule(int window, int max_rounds = 25) {
  SteadyStateRule r;
  r.window = window;
  r.max_rounds = max_rounds;
  return r;
}

// A write cliff that settles: rounds 4.. are flat, round 3 is still falling.
const std::vector<double> kSettling = {100, 60, 40, 35, 25, 25, 25.5, 24.8, 25.2, 25, 25.1};

TEST(SteadyState, FiveRoundWindowIsReachedAtTheFirstPassingRound) {
  auto r = evaluate_steady_state(kSettling, rule(5));
  ASSERT_TRUE(r.reached);
  EXPECT_EQ(*r.round, 8u);
  ASSERT_TRUE(r.window);
  EXPECT_EQ(r.window->first, 4u);
  EXPECT_EQ(r.window->last, 8u);
  EXPECT_NEAR(r.window->average, 25.1, 1e-9);
  EXPECT_NEAR(r.window->range, 0.7, 1e-9);
  EXPECT_NEAR(r.window->range_limit, 0.2 * 25.1, 1e-9);
  EXPECT_NEAR(r.window->slope_excursion_limit, 0.1 * 25.1, 1e-9);
  // y = intercept + slope × round reproduces the window's mean at its centre.
  EXPECT_NEAR(r.window->intercept + r.window->slope * 6.0, 25.1, 1e-9);
}

TEST(SteadyState, FourRoundWindowIsReachedOneRoundEarlier) {
  auto r = evaluate_steady_state(kSettling, rule(4));
  ASSERT_TRUE(r.reached);
  EXPECT_EQ(*r.round, 7u);
  EXPECT_EQ(r.window->first, 4u);
}

TEST(SteadyState, NotReachedBeforeTheWindowIsFull) {
  std::vector<double> s(kSettling.begin(), kSettling.begin() + 4);
  auto r = evaluate_steady_state(s, rule(5));
  EXPECT_FALSE(r.reached);
  EXPECT_FALSE(r.window);
}

TEST(SteadyState, NeverReachedWithinTwentyFiveRoundsNamesTheLastWindowChecked) {
  std::vector<double> s;
  for (int i = 0; i < 40; ++i) s.push_back(i % 2 ? 50 : 100);
  auto r = evaluate_steady_state(s, rule(5));
  EXPECT_FALSE(r.reached);
  EXPECT_FALSE(r.round);
  ASSERT_TRUE(r.window);
  EXPECT_EQ(r.window->last, 24u);
  EXPECT_FALSE(r.window->range_ok);
}

TEST(SteadyState, AWindowPassingOnlyAfterRoundTwentyFiveDoesNotCount) {
  std::vector<double> s;
  for (int i = 0; i < 26; ++i) s.push_back(i % 2 ? 50 : 100);
  for (int i = 0; i < 5; ++i) s.push_back(70);
  EXPECT_FALSE(evaluate_steady_state(s, rule(5)).reached);
  EXPECT_TRUE(evaluate_steady_state(s, rule(5, 0)).reached);
}

TEST(SteadyState, InsideTheRangeButFailingTheSlope) {
  const std::vector<double> ramp = {100, 104, 108, 112, 116};
  auto c = check_window(ramp, 0, rule(5));
  EXPECT_TRUE(c.range_ok) << c.range << " vs " << c.range_limit;
  EXPECT_FALSE(c.slope_ok);
  EXPECT_NEAR(c.slope, 4.0, 1e-9);
  EXPECT_NEAR(c.slope_excursion, 16.0, 1e-9);
  EXPECT_FALSE(evaluate_steady_state(ramp, rule(5)).reached);
}

TEST(SteadyState, FailingTheRangeButNotTheSlope) {
  const std::vector<double> zigzag = {100, 70, 130, 70, 100};
  auto c = check_window(zigzag, 0, rule(5));
  EXPECT_FALSE(c.range_ok);
  EXPECT_TRUE(c.slope_ok);
  EXPECT_NEAR(c.slope, 0.0, 1e-9);
  EXPECT_FALSE(evaluate_steady_state(zigzag, rule(5)).reached);
}

TEST(SteadyState, FixedLengthSoakReportsWhereItEnteredTheFinalSteadyState) {
  // FOB plateau (a passing window the cliff then breaks), cliff, steady.
  std::vector<double> s = {180, 180, 180, 180, 180, 180, 150, 110, 80, 60, 50, 45, 42, 41, 40, 40, 40};
  for (int i = 0; i < 20; ++i) s.push_back(40 + (i % 3) * 0.5);
  auto fixed = evaluate_steady_state(s, rule(5, 0));
  ASSERT_TRUE(fixed.reached);
  // Rounds 11..15 (45, 42, 41, 40, 40) are inside the range but still
  // sloping (excursion 4.8 > 4.16); 12..16 pass and every later window does.
  EXPECT_EQ(*fixed.round, 16u);
  EXPECT_EQ(fixed.window->last, s.size() - 1);
  // Searching from the start would stop on the FOB plateau.
  EXPECT_EQ(*evaluate_steady_state(s, rule(5)).round, 4u);
}

TEST(SteadyState, FixedLengthSoakStillFallingIsNotSteady) {
  std::vector<double> s;
  for (int i = 0; i < 30; ++i) s.push_back(1000.0 - 30.0 * i);
  EXPECT_FALSE(evaluate_steady_state(s, rule(5, 0)).reached);
}

TEST(SteadyState, SeveralVariablesMustPassOverTheSameWindow) {
  // a is steady from round 0, b from round 4: each passes a window of its
  // own, but both pass together first over rounds 4..8.
  const std::vector<std::vector<double>> series = {{100, 100, 100, 100, 100, 100, 100, 100, 100, 100},
                                                   {300, 250, 200, 150, 100, 100, 100, 100, 100, 100}};
  const auto r = evaluate_steady_state(std::span<const std::vector<double>>(series), rule(5));
  ASSERT_TRUE(r.reached);
  EXPECT_EQ(*r.round, 8u);
  ASSERT_EQ(r.windows.size(), 2u);
  for (const auto& w : r.windows) {
    EXPECT_EQ(w.first, 4u);
    EXPECT_TRUE(w.ok());
  }
  // Cut off before that window, it is not reached, though a alone would be.
  const auto cut = evaluate_steady_state(std::span<const std::vector<double>>(series), rule(5, 8));
  EXPECT_FALSE(cut.reached);
  EXPECT_TRUE(evaluate_steady_state(series[0], rule(5, 8)).reached);
}

TEST(SteadyState, OnlyFourOrFiveRoundWindowsAreAllowed) {
  EXPECT_FALSE(validate(rule(5)));
  EXPECT_FALSE(validate(rule(4)));
  EXPECT_TRUE(validate(rule(3)));
  EXPECT_TRUE(validate(rule(6)));
  EXPECT_TRUE(validate(rule(5, 3)));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
