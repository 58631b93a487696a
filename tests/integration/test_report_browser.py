"""`nvmonctl report` and `nvmonctl compare` pages in a real browser: headless
Chromium loads each page with no console errors, exceptions or network
requests, lays out every chart, prints to PDF, and writes a screenshot of
each chart into the build directory (build/report-screenshots/) for people
to look at."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from headless_chromium import Browser, problems  # noqa: E402
from nvmond_harness import NVMONCTL, SOURCE_DIR  # noqa: E402

RUNS = os.path.join(SOURCE_DIR, "tests", "fixtures", "runs")
SHOTS = os.path.join(os.path.dirname(os.path.abspath(NVMONCTL)), "report-screenshots")

FIGURES = """JSON.stringify(Array.from(document.querySelectorAll('figure.chart-figure')).map(f => {
  const r = f.getBoundingClientRect();
  return {id: f.id, x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height,
          svgs: f.querySelectorAll('svg').length};
}))"""


class ReportInBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="nvmond-report-")
        cls.browser = Browser(cls.tmp.name)
        os.makedirs(SHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.tmp.cleanup()

    def render(self, args, name):
        path = os.path.join(self.tmp.name, name + ".html")
        r = subprocess.run([NVMONCTL] + args + ["--html", path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return path

    def open_and_check(self, path, shot_prefix):
        url = "file://" + path
        self.browser.drain()
        events = self.browser.load(url)
        events += self.browser.drain()
        self.assertEqual(problems(events, url), [], f"{path} (chromium log: {self.browser.stderr_path})")
        self.assertEqual(self.browser.evaluate("document.scripts.length"), 0)
        with open(path, encoding="utf-8") as f:
            html = f.read()
        figures = __import__("json").loads(self.browser.evaluate(FIGURES))
        self.assertEqual(len(figures), html.count('<figure class="chart-figure"'))
        self.assertGreater(len(figures), 0)
        for fig in figures:
            with self.subTest(figure=fig["id"]):
                self.assertEqual(fig["svgs"], 1)
                self.assertGreater(fig["width"], 600)
                self.assertGreater(fig["height"], 150)
                self.browser.screenshot(os.path.join(SHOTS, f"{shot_prefix}-{fig['id'][4:]}.png"),
                                        {k: fig[k] for k in ("x", "y", "width", "height")})
        self.browser.screenshot(os.path.join(SHOTS, f"{shot_prefix}-page.png"))
        return figures

    def test_every_fixture_report_loads_clean_and_each_chart_is_screenshot(self):
        for name in sorted(os.listdir(RUNS)):
            if not os.path.isfile(os.path.join(RUNS, name, "run.json")) or name == "minimal":
                continue
            with self.subTest(run=name):
                self.open_and_check(self.render(["report", os.path.join(RUNS, name)], name), name)

    def test_wsat_report_has_its_charts_and_prints(self):
        figures = self.open_and_check(self.render(["report", os.path.join(RUNS, "wsat")], "wsat"), "wsat")
        self.assertEqual([f["id"] for f in figures],
                         ["fig-throughput", "fig-steady-state", "fig-latency", "fig-throughput-time",
                          "fig-temperature"])
        pdf = self.browser.print_pdf()
        self.assertTrue(pdf.startswith(b"%PDF"))

    def test_compare_page_loads_clean(self):
        path = self.render(["compare", os.path.join(RUNS, "wsat"), os.path.join(RUNS, "wsat-heatsink")], "compare")
        figures = self.open_and_check(path, "compare")
        self.assertIn("fig-temperature", [f["id"] for f in figures])

    def test_the_checks_catch_a_page_that_is_not_self_contained(self):
        # The negative control: a script error and a fetched image must be seen.
        path = os.path.join(self.tmp.name, "bad.html")
        with open(path, "w") as f:
            f.write('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png">'
                    '<script>console.error("boom"); undefined_function();</script></body></html>')
        url = "file://" + path
        self.browser.drain()
        found = problems(self.browser.load(url) + self.browser.drain(), url)
        self.assertTrue(any("boom" in p for p in found), found)
        self.assertTrue(any(p.startswith("exception") for p in found), found)
        self.assertTrue(any("127.0.0.1:9" in p for p in found), found)


if __name__ == "__main__":
    unittest.main()
