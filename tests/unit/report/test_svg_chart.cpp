// The SVG writer on its own: nice ticks, log axes, broken lines, escaping.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "report/axis.hpp"
#include "report/chart.hpp"
#include "report/markup.hpp"
#include "svg_probe.hpp"

namespace nvmond::report {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<double> tick_values(const ResolvedAxis& a) {
  std::vector<double> v;
  for (const auto& t : a.ticks) v.push_back(t.value);
  return v;
}

TEST(Axis, LinearAxisRoundsOutToNiceTicksFromZero) {
  const auto a = resolve_axis(Axis{"IOPS", ScaleKind::linear, TickFormat::si}, 95e3, 523e3);
  EXPECT_EQ(a.lo, 0.0);
  EXPECT_EQ(a.hi, 600e3);
  EXPECT_THAT(tick_values(a), ElementsAre(0, 100e3, 200e3, 300e3, 400e3, 500e3, 600e3));
  EXPECT_EQ(a.ticks[5].label, "500k");
}

TEST(Axis, LinearAxisWithoutZeroHugsTheData) {
  Axis ax{"°C", ScaleKind::linear, TickFormat::plain};
  ax.include_zero = false;
  const auto a = resolve_axis(ax, 38.7, 70.3);
  EXPECT_EQ(a.lo, 35.0);
  EXPECT_EQ(a.hi, 75.0);
}

TEST(Axis, LogAxisSpansWholeDecadesAndLabelsLatencies) {
  const auto a = resolve_axis(Axis{"latency", ScaleKind::log10, TickFormat::seconds}, 31e-6, 4.2e-3);
  EXPECT_DOUBLE_EQ(a.lo, 1e-5);
  EXPECT_DOUBLE_EQ(a.hi, 1e-2);
  ASSERT_EQ(a.ticks.size(), 4u);
  EXPECT_EQ(a.ticks[0].label, "10 µs");
  EXPECT_EQ(a.ticks[2].label, "1 ms");
  EXPECT_DOUBLE_EQ(a.fraction(1e-3), 2.0 / 3.0);
}

TEST(Axis, NarrowLogAxisAddsTwoAndFiveTicks) {
  const auto a = resolve_axis(Axis{"x", ScaleKind::log10, TickFormat::plain}, 1.5, 80);
  EXPECT_THAT(tick_values(a), ElementsAre(1, 2, 5, 10, 20, 50, 100));
}

TEST(Axis, ElapsedTimeTicksFallOnWholeHours) {
  const auto a = resolve_axis(Axis{"t", ScaleKind::linear, TickFormat::elapsed}, 0, 36000);
  EXPECT_THAT(tick_values(a), ElementsAre(0, 7200, 14400, 21600, 28800, 36000));
  EXPECT_EQ(a.ticks[1].label, "2:00");
}

TEST(Markup, EscapesEverythingHtmlTreatsSpecially) {
  EXPECT_EQ(escape("<script>a&b\"c'd</script>"), "&lt;script&gt;a&amp;b&quot;c&#39;d&lt;/script&gt;");
  EXPECT_EQ(num(-0.04), "0");
  EXPECT_EQ(num(12.50, 2), "12.5");
  EXPECT_EQ(bytes_per_second(1.7e9), "1.7 GB/s");
  EXPECT_EQ(seconds(0.0005), "500 µs");
}

Chart line_chart() {
  Chart c;
  c.id = "c1";
  c.title = "T";
  c.x = Axis{"Round", ScaleKind::linear, TickFormat::plain};
  c.y = Axis{"IOPS", ScaleKind::linear, TickFormat::si};
  return c;
}

TEST(SvgChart, ANaNBreaksTheLineIntoTwoPolylines) {
  auto c = line_chart();
  c.series.push_back({"s", "#000", {{0, 1}, {1, 2}, {2, NAN}, {3, 4}, {4, 5}}});
  const auto svg = render_svg(c);
  EXPECT_EQ(test::tags(svg, "<polyline").size(), 2u);
  EXPECT_EQ(test::series_points(svg, "s").size(), 4u);
}

TEST(SvgChart, LogAxisSkipsNonPositiveValues) {
  auto c = line_chart();
  c.y.scale = ScaleKind::log10;
  c.series.push_back({"s", "#000", {{0, 1e-4}, {1, 0}, {2, -1}, {3, 2e-4}}});
  EXPECT_EQ(test::series_points(render_svg(c), "s").size(), 2u);
}

TEST(SvgChart, PointsLandWhereTheDeclaredPlotGeometrySays) {
  auto c = line_chart();
  c.series.push_back({"s", "#000", {{0, 0}, {50, 10}, {100, 20}}});
  c.spans.push_back({"steady-state", "window", 40, 60, "#0f0"});
  const auto svg = render_svg(c);
  const test::PlotX plot(svg);
  const auto pts = test::series_points(svg, "s");
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_NEAR(plot.data(pts[1].first), 50, 0.05);
  const auto span = test::tags(svg, "<rect class=\"x-span steady-state\"");
  ASSERT_EQ(span.size(), 1u);
  EXPECT_NEAR(plot.data(test::num_attr(span[0], "x")), 40, 0.01);
  EXPECT_NEAR(plot.data(test::num_attr(span[0], "x") + test::num_attr(span[0], "width")), 60, 0.01);
}

TEST(SvgChart, UserTextIsEscapedEverywhere) {
  auto c = line_chart();
  c.id = "x\"onload=\"alert(1)";
  c.title = "<script>alert(1)</script> & co";
  c.x.title = "<b>";
  c.series.push_back({"S<script>&", "#000", {{0, 1}}});
  c.bars.push_back({"<i>", 3});
  const auto svg = render_svg(c);
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
  EXPECT_THAT(svg, Not(HasSubstr("\"onload")));
  EXPECT_THAT(svg, Not(HasSubstr("<b>")));
  EXPECT_THAT(svg, Not(HasSubstr("<i>")));
  EXPECT_THAT(svg, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"));
}

TEST(SvgChart, BarChartHasOneBarPerCategoryWithItsValue) {
  auto c = line_chart();
  c.y.scale = ScaleKind::log10;
  for (int i = 0; i < 20; ++i) c.bars.push_back({"≤ " + std::to_string(i), std::pow(10.0, i % 7)});
  const auto svg = render_svg(c);
  const auto bars = test::tags(svg, "<rect class=\"bar\"");
  ASSERT_EQ(bars.size(), 20u);
  EXPECT_EQ(test::num_attr(bars[3], "data-value"), 1000.0);
  // Taller bar for the larger count.
  EXPECT_GT(test::num_attr(bars[3], "height"), test::num_attr(bars[2], "height"));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::report
