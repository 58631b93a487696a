// Reports rendered from the fixture runs (tests/fixtures/runs, made by
// make_fixtures.py): the charts hold what run.json says, sections appear only
// with their data, user strings are escaped, bad files are named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.hpp"
#include "report/report_cli.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"
#include "svg_probe.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond::report {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kRuns = nvmond::test::fixture_path("runs/");

// What the fixtures' tests that are not PTS tests rest on, as the tests
// declare it (the report does not link them; tests/unit/pts checks that
// the tests' own bases say this).
const TestBases kBases = {
    {"mixed", "the reviews' 8 KiB 70/30 saturation with extra over-provisioning"},
    {"vqd", "the reviews' variable-queue-depth test"},
    {"slc", "the reviews' SLC-cache fill: data written until the cache runs out"},
    {"qos", "a datasheet's QoS limits: 4 KiB QD1 latency at a quantile"},
    {"endurance", "the drive's endurance rating (JESD218 DWPD): writes at its rated pace"},
};

RunRecord load(const std::string& name) {
  auto r = load_run(kRuns + name);
  if (!r) ADD_FAILURE() << r.error().message;
  return r ? *r : RunRecord{};
}

nlohmann::json raw(const std::string& name) {
  std::ifstream f(kRuns + name + "/run.json");
  return nlohmann::json::parse(f);
}

TEST(RunReport, WsatThroughputChartHasOnePointPerRoundInRoundOrder) {
  const auto json = raw("wsat");
  const auto page = render_run_report(load("wsat"), kBases);
  const auto svg = test::svg_by_id(page, "throughput");
  ASSERT_FALSE(svg.empty());
  const auto points = test::series_points(svg, "IOPS");
  ASSERT_EQ(points.size(), json["rounds"].size());
  ASSERT_EQ(points.size(), 600u);
  const test::PlotX plot(svg);
  for (std::size_t i = 0; i < points.size(); ++i) {
    ASSERT_NEAR(plot.data(points[i].first), json["rounds"][i]["index"].get<double>(), 0.02) << "point " << i;
  }
  // Higher IOPS sits higher on the page (smaller y): FOB round 0 above round 599.
  EXPECT_LT(points.front().second, points.back().second);
}

TEST(RunReport, WsatSteadyStateWindowIsShadedWhereRunJsonPutsIt) {
  const auto json = raw("wsat");
  const double from = json["steady_state"]["window"][0].get<double>();
  const double to = json["steady_state"]["window"][1].get<double>();
  const auto page = render_run_report(load("wsat"), kBases);
  for (const char* id : {"throughput", "steady-state"}) {
    const auto svg = test::svg_by_id(page, id);
    const auto spans = test::tags(svg, "<rect class=\"x-span steady-state\"");
    ASSERT_EQ(spans.size(), 1u) << id;
    EXPECT_EQ(test::num_attr(spans[0], "data-from"), from);
    EXPECT_EQ(test::num_attr(spans[0], "data-to"), to);
    const test::PlotX plot(svg);
    const double x = test::num_attr(spans[0], "x");
    EXPECT_NEAR(plot.data(x), from, 0.01) << id;
    EXPECT_NEAR(plot.data(x + test::num_attr(spans[0], "width")), to, 0.01) << id;
    // The ±10 % and ±20 % bands around the window average, and the fitted line.
    const double avg = json["steady_state"]["average"].get<double>();
    const auto bands = test::tags(svg, "<rect class=\"y-band\"");
    ASSERT_EQ(bands.size(), 2u) << id;
    EXPECT_NEAR(test::num_attr(bands[0], "data-from"), avg * 0.8, 1e-6 * avg);
    EXPECT_NEAR(test::num_attr(bands[1], "data-to"), avg * 1.1, 1e-6 * avg);
    EXPECT_EQ(test::series_points(svg, "fitted line over window").size(), 2u) << id;
  }
}

TEST(RunReport, WsatLatencyIsOnALogAxisWithFourQuantilesPerRound) {
  const auto svg = test::svg_by_id(render_run_report(load("wsat"), kBases), "latency");
  EXPECT_EQ(test::attr(test::tag_at(svg, 0), "data-y-scale"), "log10");
  for (const char* q : {"write p50", "write p99", "write p99.9", "write p99.99"}) {
    EXPECT_EQ(test::series_points(svg, q).size(), 600u) << q;
  }
}

TEST(RunReport, TemperatureAndThroughputShareOneTimeAxisWithThrottleEvents) {
  const auto json = raw("wsat");
  const auto page = render_run_report(load("wsat"), kBases);
  const auto temp = test::svg_by_id(page, "temperature");
  const auto tp = test::svg_by_id(page, "throughput-time");
  for (const char* a : {"data-plot-x", "data-plot-width", "data-x-lo", "data-x-hi"}) {
    EXPECT_EQ(test::attr(test::tag_at(temp, 0), a), test::attr(test::tag_at(tp, 0), a)) << a;
  }
  const auto events = json["drive"]["throttle_events"].size();
  ASSERT_GT(events, 0u);
  EXPECT_EQ(test::tags(temp, "<rect class=\"x-span throttle\"").size(), events);
  EXPECT_EQ(test::tags(tp, "<rect class=\"x-span throttle\"").size(), events);
  // WCTEMP and CCTEMP lines.
  const auto lines = test::tags(temp, "<line class=\"ref-line\"");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(test::num_attr(lines[0], "data-value"), json["target"]["warning_temp_c"].get<double>());
  EXPECT_EQ(test::num_attr(lines[1], "data-value"), json["target"]["critical_temp_c"].get<double>());
}

// Which sections each fixture must show; every other known section must be absent.
struct Expect {
  const char* fixture;
  std::vector<std::string> sections;
};

TEST(RunReport, SectionsAppearOnlyWhenTheRunHasTheirData) {
  const std::vector<std::string> all = {"throughput", "latency", "thermal", "elements", "histogram",
                                        "slc",        "qos",     "compare", "wear"};
  const std::vector<Expect> cases = {
      {"wsat", {"throughput", "latency", "thermal", "wear"}},
      {"iops", {"throughput", "latency", "elements"}},
      {"latency", {"throughput", "latency", "elements"}},
      {"vqd", {"throughput", "latency", "elements"}},
      {"cbw", {"throughput", "latency", "thermal", "histogram", "wear"}},
      {"slc", {"slc", "wear"}},
      {"qos", {"throughput", "latency", "elements", "qos"}},
      {"mixed", {"throughput", "latency", "thermal", "compare", "wear"}},
      {"minimal", {}},
  };
  for (const auto& c : cases) {
    const auto page = render_run_report(load(c.fixture), kBases);
    EXPECT_THAT(page, HasSubstr("<section id=\"run\">")) << c.fixture;
    for (const auto& s : all) {
      const bool want = std::find(c.sections.begin(), c.sections.end(), s) != c.sections.end();
      EXPECT_EQ(page.find("<section id=\"" + s + "\">") != std::string::npos, want) << c.fixture << ": " << s;
    }
    EXPECT_THAT(page, Not(HasSubstr("<script"))) << c.fixture;
  }
}

TEST(RunReport, IopsMatrixIsBlockSizeByMix) {
  const auto page = render_run_report(load("iops"), kBases);
  const auto p = page.find("<table id=\"iops-matrix\">");
  ASSERT_NE(p, std::string::npos);
  const auto table = page.substr(p, page.find("</table>", p) - p);
  EXPECT_EQ(test::tags(table, "<tr>").size(), 1u + 8u);  // header + 8 block sizes
  EXPECT_EQ(test::tags(table, "<th>").size(), 1u + 7u);  // "Block size" + 7 mixes
  EXPECT_THAT(table, HasSubstr("<th>65/35</th>"));
  EXPECT_THAT(table, HasSubstr("<td>0.5 KiB</td>"));
}

TEST(RunReport, VariableQdLatencyChartAndHistogramAndSlcCurve) {
  const auto vqd = test::svg_by_id(render_run_report(load("vqd"), kBases), "latency-qd");
  EXPECT_EQ(test::attr(test::tag_at(vqd, 0), "data-x-scale"), "log10");
  EXPECT_EQ(test::series_points(vqd, "4 KiB 100/0 read p99.9").size(), 9u);

  const auto json = raw("cbw");
  const auto hist = test::svg_by_id(render_run_report(load("cbw"), kBases), "histogram");
  const auto bars = test::tags(hist, "<rect class=\"bar\"");
  EXPECT_EQ(bars.size(), json["histogram"]["counts"].size());
  EXPECT_EQ(bars.size(), json["histogram"]["bounds_s"].size() + 1);
  EXPECT_EQ(test::attr(bars.back(), "data-label").rfind("&gt; ", 0), 0u) << "overflow bucket";

  const auto slc = test::svg_by_id(render_run_report(load("slc"), kBases), "slc");
  const auto cache = test::tags(slc, "<line class=\"ref-line\" data-value=\"28000000000\"");
  EXPECT_EQ(cache.size(), 1u);
}

TEST(RunReport, QosVerdictFailsWhenOneCheckFails) {
  const auto page = render_run_report(load("qos"), kBases);
  EXPECT_THAT(page, HasSubstr("<p class=\"verdict fail\">FAIL"));
  EXPECT_THAT(page, HasSubstr("<td class=\"pass\">pass</td>"));
  EXPECT_THAT(page, HasSubstr("<td class=\"fail\">FAIL</td>"));
}

TEST(RunReport, MixedRunOverlaysTheReducedRangeRun) {
  const auto svg = test::svg_by_id(render_run_report(load("mixed"), kBases), "compare-throughput");
  EXPECT_EQ(test::series_points(svg, "full range").size(), 120u);
  EXPECT_EQ(test::series_points(svg, "reduced range (75 %)").size(), 120u);
  // The reduced run is the same drive with its own tested range.
  const auto page = render_run_report(load("mixed"), kBases);
  const auto table = page.substr(page.find("<section id=\"compare\">"));
  EXPECT_NE(table.find("2.88 TB (75%)"), std::string::npos) << table.substr(0, 3000);
  EXPECT_EQ(table.substr(0, table.find("</table>")).find("run.json"), std::string::npos);  // no source path for a name
}

TEST(RunReport, WsatPlotsIopsAgainstTheDataWritten) {
  auto json = raw("wsat");
  double total = 0;
  for (auto& r : json["rounds"]) {
    r["bytes_written"] = 4e11;
    total += 4e11;
  }
  const auto run = parse_run(json.dump(), "wsat/run.json");
  ASSERT_TRUE(run) << run.error().message;
  const auto svg = test::svg_by_id(render_run_report(*run, kBases), "iops-written");
  ASSERT_FALSE(svg.empty());
  const auto points = test::series_points(svg, "IOPS");
  ASSERT_EQ(points.size(), json["rounds"].size());
  const test::PlotX plot(svg);
  EXPECT_NEAR(plot.data(points.front().first), 4e11, 4e11 * 0.01);  // after the first round's writes
  EXPECT_NEAR(plot.data(points.back().first), total, total * 0.01);
  // A run without per-round writes (older run.json) has no such chart.
  EXPECT_TRUE(test::svg_by_id(render_run_report(load("wsat"), kBases), "iops-written").empty());
}

TEST(RunReport, NonConformantConditionsAreNamedInTheHeader) {
  auto json = raw("wsat");
  json["conditions"] = {
      {{"name", "purge-fallback"}, {"detail", "purged by zero-fill: BLKZEROOUT"}},
      {{"name", "write-cache-enabled"}, {"detail", "Get Features volatile write cache (06h): enabled"}}};
  const auto run = parse_run(json.dump(), "wsat/run.json");
  ASSERT_TRUE(run) << run.error().message;
  const auto page = render_run_report(*run, kBases);
  const auto verdict = page.find("NON-CONFORMANT");
  ASSERT_NE(verdict, std::string::npos);
  EXPECT_LT(verdict, page.find("<section id=\"run\">"));  // the header, before anything else
  EXPECT_THAT(page, HasSubstr("purge-fallback"));
  EXPECT_THAT(page, HasSubstr("purged by zero-fill: BLKZEROOUT"));
  EXPECT_THAT(page, HasSubstr("write-cache-enabled"));
  EXPECT_THAT(render_run_report(load("wsat"), kBases), Not(HasSubstr("NON-CONFORMANT")));
}

// A test that is not a PTS test does not call itself one: its header names
// what it rests on instead of a PTS version, and conditions it ran with are
// not called departures from the PTS; a PTS test's header names its
// profile's specification.
TEST(RunReport, ATestThatIsNotAPtsTestNamesWhatItRestsOnNotThePts) {
  for (const std::string name : {"slc", "qos", "mixed", "vqd"}) {
    auto json = raw(name);
    json["profile"] = "enterprise";
    json["conditions"] = {{{"name", "write-cache-unknown"}, {"detail", "a file has no write cache to read"}}};
    const auto run = parse_run(json.dump(), name + "/run.json");
    ASSERT_TRUE(run) << run.error().message;
    const auto page = render_run_report(*run, kBases);
    const auto head = page.substr(0, page.find("<section id=\"run\">"));
    EXPECT_THAT(head, HasSubstr("not a PTS test: ")) << name;
    EXPECT_THAT(page, Not(HasSubstr("PTS-E"))) << name;
    EXPECT_THAT(page, Not(HasSubstr("SNIA"))) << name;
    EXPECT_THAT(page, Not(HasSubstr("NON-CONFORMANT"))) << name;
    EXPECT_THAT(head, HasSubstr("a file has no write cache to read")) << name;
  }
  EXPECT_THAT(render_run_report(load("slc"), kBases), HasSubstr("SLC-cache fill"));
  EXPECT_THAT(render_run_report(load("qos"), kBases), HasSubstr("datasheet"));
  auto wsat = raw("wsat");
  wsat["profile"] = "enterprise";
  const auto pts = parse_run(wsat.dump(), "wsat/run.json");
  ASSERT_TRUE(pts) << pts.error().message;
  EXPECT_THAT(render_run_report(*pts, kBases), HasSubstr("PTS-E 2.0.x"));
  EXPECT_THAT(render_run_report(*pts, kBases), Not(HasSubstr("not a PTS test")));
}

// CBW's pre-write between sweep rounds: one line says it ran (how many
// rounds, before how many sweep rounds, how long), and its rounds are
// neither preconditioning nor test rounds in the per-round chart.
TEST(RunReport, ACbwRunSaysItsPreWriteRanAndChartsItsRoundsAsNeitherPreconditioningNorTest) {
  auto json = raw("cbw");
  json["parameters"]["prewrite_rounds"] = "2";
  const auto tests = json["rounds"].size();
  for (int k = 0; k < 4; ++k) {
    auto r = json["rounds"][0];
    r["index"] = tests + static_cast<std::size_t>(k);
    r["phase"] = "prewrite";
    r["stage"] = 3;
    r["round"] = k / 2;
    r["element"] = {
        {"label", "CBW 0/100 T4Q32 pre-write"}, {"bs", 4096}, {"read_pct", 0}, {"threads", 4}, {"queue_depth", 32}};
    json["rounds"].push_back(r);
  }
  const auto run = parse_run(json.dump(), "cbw/run.json");
  ASSERT_TRUE(run) << run.error().message;
  const auto page = render_run_report(*run, kBases);
  EXPECT_THAT(page, HasSubstr("4 rounds (CBW 0/100 T4Q32 pre-write), 2 before each of 2 sweep rounds, "
                              "0 h 4 min 0 s in all"));
  const auto svg = test::svg_by_id(page, "throughput");
  EXPECT_TRUE(test::series_points(svg, "preconditioning").empty());
  EXPECT_EQ(test::series_points(svg, "IOPS").size(), tests);
  // No pre-write: the line says so.
  json["rounds"].erase(json["rounds"].begin() + static_cast<std::ptrdiff_t>(tests), json["rounds"].end());
  json["parameters"]["prewrite_rounds"] = "0";
  EXPECT_THAT(render_run_report(*parse_run(json.dump(), "cbw/run.json"), kBases),
              HasSubstr("<dt>Pre-write</dt><dd>none</dd>"));
}

TEST(RunReport, StringsFromRunJsonAreEscaped) {
  auto json = raw("minimal");
  json["target"]["serial"] = "<script>alert('x')</script>&SN";
  json["target"]["path"] = "/tmp/a\"b<c>.img";
  json["parameters"]["label<img src=x>"] = "<b>bold</b>";
  auto run = parse_run(json.dump(), "evil.json");
  ASSERT_TRUE(run.ok()) << run.error().message;
  const auto page = render_run_report(*run, kBases);
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  EXPECT_THAT(page, Not(HasSubstr("<img")));
  EXPECT_THAT(page, Not(HasSubstr("<b>")));
  EXPECT_THAT(page, HasSubstr("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;SN"));
  EXPECT_THAT(page, HasSubstr("/tmp/a&quot;b&lt;c&gt;.img"));
}

TEST(RunRecord, BadFieldsAreNamedByFileAndPath) {
  auto json = raw("minimal");
  const std::string start = json["started_at"];
  json["rounds"] = nlohmann::json::array(
      {{{"index", 0}, {"started_at", start}, {"iops", 5.0}}, {{"index", 1}, {"started_at", start}, {"iops", "fast"}}});
  auto r = parse_run(json.dump(), "x/run.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, ErrorReason::decode);
  EXPECT_EQ(r.error().message, "x/run.json: rounds[1].iops: expected a number");

  // The header goes through the run model's codec, which names the field as this decoder does.
  json = raw("minimal");
  json["target"]["capacity_bytes"] = "1 GiB";
  EXPECT_EQ(parse_run(json.dump(), "x/run.json").error().message,
            "x/run.json: target.capacity_bytes: expected an unsigned integer");
  json = raw("minimal");
  json["parameters"]["rounds"] = 25;
  EXPECT_EQ(parse_run(json.dump(), "x/run.json").error().message, "x/run.json: parameters.rounds: expected a string");

  json = raw("minimal");
  json["schema"] = "nvmond.run/2";
  EXPECT_THAT(parse_run(json.dump(), "y").error().message, HasSubstr("y: schema: unsupported schema"));
  EXPECT_THAT(parse_run("{\"rounds\": [", "z").error().message, HasSubstr("z: not JSON"));
}

// `"iops": 1e999` aborted nvmonctl (an uncaught overflow),
// and `{}` was reported as an empty run.
TEST(RunRecord, NonFiniteNumbersAreNamedByFileFieldAndLine) {
  const std::string text =
      "{\"schema\": \"nvmond.run/1\",\n \"rounds\": [{\"index\": 0},\n  {\"index\": 1, \"iops\": -1e999}]}";
  auto r = parse_run(text, "x/run.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, ErrorReason::decode);
  EXPECT_EQ(r.error().message, "x/run.json: rounds[1].iops: -1e999 is not a finite number (line 3, column 24)");

  auto nan = parse_run("{\"target\": {\"capacity_bytes\": NaN}}", "y");
  ASSERT_FALSE(nan.ok());
  EXPECT_EQ(nan.error().message, "y: target.capacity_bytes: NaN is not a finite number (line 1, column 31)");
  EXPECT_THAT(parse_run("{\"a\": [1, 2, }", "z").error().message, HasSubstr("z: not JSON at a[2] (line 1, column 14)"));
}

TEST(RunRecord, ADocumentWithoutTheFieldsOfARunIsNotARun) {
  EXPECT_EQ(parse_run("{}", "e.json").error().message,
            "e.json: not a run (schema nvmond.run/1): missing schema, test, status, started_at");
  EXPECT_EQ(parse_run("[1]", "a.json").error().message, "a.json: (top level): expected a run object");
  auto json = raw("minimal");
  json.erase("status");
  EXPECT_EQ(parse_run(json.dump(), "m").error().message, "m: not a run (schema nvmond.run/1): missing status");
}

TEST(RunRecord, OnlyARegularFileWithinTheSizeLimitIsRead) {
  nvmond::test::TempDir dir("run-file");
  const std::string big = dir.path() + "/big.json";
  ASSERT_FALSE(write_file_atomically(big, std::string(2048, ' ')));
  EXPECT_TRUE(read_run_file(big, 2048).ok());
  EXPECT_EQ(read_run_file(big, 2047).error().message,
            big + ": larger than 2047 bytes, more than any run nvmond writes");

  const std::string link = dir.path() + "/run.json";
  std::filesystem::create_symlink("/dev/zero", link);
  EXPECT_EQ(load_run(dir.path()).error().message, link + ": is a symbolic link; give the run file itself");
  EXPECT_EQ(load_run("/dev/zero").error().message, "/dev/zero: is a character device, not a regular file");
  EXPECT_EQ(load_run(dir.path() + "/absent.json").error().reason, ErrorReason::absent);
}

TEST(RunRecord, Rfc3339TimesWithZonesAndFractions) {
  EXPECT_EQ(parse_rfc3339("1970-01-02T00:00:00Z"), 86400.0);
  EXPECT_EQ(parse_rfc3339("2026-11-02T10:00:30.5+02:00"), parse_rfc3339("2026-11-02T08:00:30.5Z"));
  EXPECT_FALSE(parse_rfc3339("2026-13-02T08:00:00Z"));
  EXPECT_FALSE(parse_rfc3339("2026-11-02T08:00:00"));
  EXPECT_FALSE(parse_rfc3339("yesterday"));
}

TEST(ReportCli, ExitCodesSayWhatWentWrong) {
  nvmond::test::TempDir dir("report-cli");
  std::ostringstream out, err;
  EXPECT_EQ(report_command(kRuns + "wsat", dir.path() + "/r.html", out, err, kBases), kExitOk) << err.str();
  EXPECT_THAT(*read_whole_file(dir.path() + "/r.html"), HasSubstr("<svg"));
  EXPECT_EQ(report_command(dir.path() + "/nothing", std::nullopt, out, err, kBases), kExitBadRun);
  EXPECT_THAT(err.str(), HasSubstr(dir.path() + "/nothing"));
  EXPECT_EQ(report_command(kRuns + "wsat", dir.path() + "/no/such/dir/r.html", out, err, kBases), kExitWriteFailed);
  EXPECT_EQ(compare_command({kRuns + "wsat", kRuns + "bad-name"}, std::nullopt, out, err), kExitBadRun);
}

TEST(ReportCli, ARunDirectoryGetsItsReportBesideRunJson) {
  nvmond::test::TempDir dir("report-beside");
  EXPECT_EQ(write_report_beside(dir.path(), kBases)->reason, ErrorReason::absent);
  ASSERT_FALSE(write_file_atomically(dir.path() + "/run.json", *read_whole_file(kRuns + "slc/run.json")));
  ASSERT_FALSE(write_report_beside(dir.path(), kBases));
  EXPECT_THAT(*read_whole_file(dir.path() + "/report.html"),
              HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"slc\""));
}

TEST(ReportCli, CompareTableHasOneRowPerRunAndTheHtmlOverlaysThem) {
  nvmond::test::TempDir dir("report-cli");
  std::ostringstream out, err;
  ASSERT_EQ(compare_command({kRuns + "wsat", kRuns + "wsat-heatsink"}, dir.path() + "/c.html", out, err), kExitOk)
      << err.str();
  const auto text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_THAT(text, HasSubstr("#1 wsat S7XKNE0W500123  wsat  Acme DC7450 3.84TB (S7XKNE0W500123)"));
  EXPECT_THAT(text, HasSubstr("#2 "));
  const auto html = *read_whole_file(dir.path() + "/c.html");
  const auto svg = test::svg_by_id(html, "throughput");
  EXPECT_EQ(test::series_points(svg, "#1 wsat S7XKNE0W500123").size(), 600u);
  EXPECT_EQ(test::tags(svg, "<rect class=\"x-span steady-state\"").size(), 2u);
  // Only the throttling drive has throttle spans.
  EXPECT_GT(test::tags(test::svg_by_id(html, "temperature"), "<rect class=\"x-span throttle\"").size(), 0u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::report
