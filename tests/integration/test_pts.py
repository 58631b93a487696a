"""PTS tests end to end through `nvmonctl test run`: a 10-hour WSAT on a
simulated datacenter drive in seconds, the extra over-provisioning
comparison, DIRTH on two drives compared, and the safety guard refusing a
destructive test before any I/O."""
import json
import os
import re
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import nvmonctl  # noqa: E402


def test_run(*args, timeout=300):
    return nvmonctl("test", "run", *args, timeout=timeout)


class ForegroundSimTest(unittest.TestCase):
    def test_ten_hour_wsat_on_a_simulated_drive_runs_in_seconds(self):
        out = tempfile.mkdtemp(prefix="pts-wsat-")
        start = time.monotonic()
        r = test_run("wsat", "--target", "sim:datacenter", "--out", out)
        wall = time.monotonic() - start
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout[-2000:])
        self.assertLess(wall, 60, "10 h of WSAT must take under a minute of wall time")
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
        self.assertEqual(run["schema"], "nvmond.run/1")
        self.assertEqual(run["status"], "completed")
        self.assertEqual(run["clock"], "simulated")
        rounds = run["rounds"]
        self.assertEqual(len(rounds), 600)
        self.assertEqual([r["index"] for r in rounds], list(range(600)))
        self.assertAlmostEqual(sum(r["seconds"] for r in rounds) / 3600, 10, delta=0.05)
        ss = run["steady_state"]
        self.assertTrue(ss["reached"], ss)
        self.assertEqual(ss["window_rounds"], 5)
        fob = rounds[0]["iops"]
        self.assertGreaterEqual(fob, 2 * ss["average"], f"FOB {fob:.0f} vs steady {ss['average']:.0f}")
        # The cliff lies between FOB and the steady-state round.
        self.assertGreater(ss["round"], 5)
        # Per-op latency quantiles and the drive's temperature in every round.
        w = rounds[-1]["ops"]["write"]
        self.assertGreater(w["latency_s"]["p99.99"], 0)
        self.assertIn("temperature_c", rounds[-1])
        self.assertGreater(run["drive"]["host_bytes_written"], 0)
        self.assertIn("round", r.stdout)  # progress lines
        self.assertIn("ETA", r.stdout)
        # The report beside run.json is rendered from this run: the
        # steady-state window is shaded where run.json puts it.
        with open(os.path.join(out, "report.html")) as f:
            html = f.read()
        first, last = ss["window"]
        span = re.search(r'<rect class="x-span steady-state" data-from="([^"]+)" data-to="([^"]+)"', html)
        self.assertIsNotNone(span, "no steady-state window in report.html")
        self.assertAlmostEqual(float(span.group(1)), first, delta=0.5)
        self.assertAlmostEqual(float(span.group(2)), last, delta=0.5)
        # Rounds as the PTS counts them, from 1 (run.json's from 0).
        self.assertIn(f"reached at round {ss['round'] + 1}<", html)
        self.assertIn(f"rounds {first + 1}–{last + 1}", html)
        # The default length is the reviews', not the specification's: flagged.
        soak = "variant=soak: 600 rounds (reviews), not PTS 6 h / 4×"
        self.assertIn({"name": "parameter", "detail": soak}, run["conditions"])
        self.assertIn("NON-CONFORMANT", html)
        self.assertIn(soak, html)
        print(f"wsat: {wall:.1f} s wall, FOB {fob:.0f} IOPS, steady {ss['average']:.0f} IOPS "
              f"from round {ss['round']}", file=sys.stderr)

    def test_a_reduced_range_reaches_a_higher_steady_state(self):
        out = tempfile.mkdtemp(prefix="pts-mixed-")
        r = test_run("mixed", "--target", "sim:generic", "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout[-2000:])
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
        full = run["steady_state"]
        reduced = run["compare"]["run"]["steady_state"]
        self.assertTrue(full["reached"], full)
        self.assertTrue(reduced["reached"], reduced)
        self.assertEqual(run["compare"]["label"], "reduced range 75%")
        self.assertGreater(reduced["average"], 1.2 * full["average"])
        self.assertEqual(run["preconditioning"][0]["kind"], "workload-independent")
        print(f"mixed 8K 70/30: full {full['average']:.0f} IOPS, reduced {reduced['average']:.0f} IOPS",
              file=sys.stderr)

    def test_unknown_parameters_are_refused_by_name(self):
        r = test_run("wsat", "--target", "sim:datacenter", "--set", "roundz=3", "--out", tempfile.mkdtemp())
        self.assertEqual(r.returncode, 2)
        self.assertIn("roundz", r.stderr)


class DirthCompareTest(unittest.TestCase):
    """DIRTH end to end on two simulated drives, then `compare` across the
    two runs: one demand-intensity line per run and each run's max, mid and
    min IOPS points side by side."""

    GRID = ("--set", "threads=8", "--set", "queue_depth=32", "--set", "thread_counts=8,2,1",
            "--set", "queue_depths=32,4,1")

    def dirth(self, drive):
        out = tempfile.mkdtemp(prefix=f"pts-dirth-{drive}-")
        r = test_run("dirth", "--target", f"sim:{drive}", "--out", out, *self.GRID)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout[-2000:])
        with open(os.path.join(out, "run.json")) as f:
            return out, json.load(f)

    def test_two_dirth_runs_compare_as_one_demand_intensity_line_each(self):
        runs = [self.dirth(d) for d in ("datacenter", "generic")]
        for _, run in runs:
            self.assertEqual(run["status"], "completed")
            self.assertEqual([p["kind"] for p in run["preconditioning"]], ["workload-dependent"])
            self.assertEqual(run["steady_state"]["element"], "4KiB 0/100 T8Q32")
            self.assertEqual([p["point"] for p in run["response_time_histograms"]], ["max", "mid", "min"])
        html = os.path.join(tempfile.mkdtemp(prefix="pts-dirth-cmp-"), "cmp.html")
        r = nvmonctl("compare", runs[0][0], runs[1][0], "--html", html, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len([line for line in r.stdout.splitlines() if " dirth " in line]), 2, r.stdout)
        with open(html) as f:
            page = f.read()
        start = page.index('<svg xmlns="http://www.w3.org/2000/svg" id="demand-intensity"')
        curve = page[start:page.index("</svg>", start)]
        lines = re.findall(r'<g class="series" data-series="([^"]*)"', curve)
        self.assertEqual(len(lines), 2, lines)
        for name, (_, run) in zip(lines, runs):
            self.assertIn(run["target"]["serial"], name)
            g = curve.index(f'<g class="series" data-series="{name}"')
            points = re.findall(r'<polyline points="([^"]*)"', curve[g:curve.index("</g>", g)])
            self.assertEqual(sum(len(p.split()) for p in points), 9, name)
        table = page[page.index('id="compare-iops-points"'):]
        table = table[:table.index("</table>")]
        self.assertEqual(table.count("<tr>") - 1, 6)  # header, then 3 points x 2 runs
        for _, run in runs:
            for p in run["response_time_histograms"]:
                self.assertIn(p["label"], table)
        print("dirth max IOPS: " + ", ".join(f"{run['target']['serial']} {run['response_time_histograms'][0]['label']} "
                                             f"{run['response_time_histograms'][0]['iops']:.0f}" for _, run in runs),
              file=sys.stderr)


class RefusedTargetTest(unittest.TestCase):
    def test_a_destructive_test_on_a_refused_target_does_no_io(self):
        d = tempfile.mkdtemp(prefix="pts-refuse-")
        victim = os.path.join(d, "precious.img")
        content = os.urandom(1 << 20)
        with open(victim, "wb") as f:
            f.write(content)
        before = os.stat(victim)
        config = os.path.join(d, "c.toml")
        with open(config, "w") as f:
            f.write('[safety]\nallow_dirs = ["/nonexistent/scratch"]\n')
        r = test_run("wsat", "--target", victim, "--config", config, "--set", "rounds=1",
                     "--set", "round=1s", "--out", os.path.join(d, "out"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("refused", r.stderr)
        self.assertIn("allow", r.stderr)  # the guard's reason: outside the allowed dirs
        with open(victim, "rb") as f:
            self.assertEqual(f.read(), content)
        self.assertEqual(os.stat(victim).st_mtime_ns, before.st_mtime_ns)
        self.assertFalse(os.path.exists(os.path.join(d, "out", "run.json")))


class HirXsrSimTest(unittest.TestCase):
    """HIR and XSR at the specification's lengths on a simulated datacenter
    drive: about 15 h and 22 h of drive time, seconds of wall time."""

    def run_sim(self, test):
        out = tempfile.mkdtemp(prefix=f"pts-{test}-")
        r = test_run(test, "--target", "sim:datacenter", "--out", out, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout[-2000:])
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
        with open(os.path.join(out, "report.html")) as f:
            self.page = f.read()
        self.assertEqual(run["status"], "completed")
        return run

    def test_hir_bursts_after_longer_idles_recover_more_and_the_baseline_returns(self):
        run = self.run_sim("hir")
        ss = run["steady_state"]
        self.assertTrue(ss["reached"], ss)
        steady = ss["average"]
        by_stage = {}
        for r in run["rounds"]:
            by_stage.setdefault(r["stage"], []).append(r)
        self.assertEqual(len(by_stage), 11)
        means = []
        for stage, idle in zip((1, 3, 5, 7, 9), (5, 10, 15, 25, 50)):
            bursts = by_stage[stage]
            self.assertEqual(len(bursts), 360)
            self.assertEqual(bursts[0]["element"]["label"], f"4KiB 0/100 5s + idle {idle}s")
            gap = (bursts[1]["started_ns"] - bursts[0]["started_ns"]) / 1e9 - bursts[0]["seconds"]
            self.assertAlmostEqual(gap, idle, delta=1e-3)
            means.append(sum(b["iops"] for b in bursts) / len(bursts))
            baseline = by_stage[stage + 1]
            self.assertEqual(len(baseline), 360)
            # 30 minutes of continuous writes spend what the idles saved: back
            # near the steady state (which still drifts down as the random
            # writes fill the drive), well below the wait state.
            last = sum(b["iops"] for b in baseline[-30:]) / 30
            self.assertLess(last, 0.8 * means[-1])
            self.assertAlmostEqual(last, steady, delta=0.25 * steady)
        self.assertGreater(means[0], 1.2 * steady)
        for shorter, longer in zip(means, means[1:]):
            self.assertGreaterEqual(longer, 0.99 * shorter, "longer idles must recover at least as much")
        self.assertIn('id="rate-by-stage"', self.page)
        print("hir: steady %.0f IOPS; wait states %s" % (steady, ", ".join(f"{m:.0f}" for m in means)),
              file=sys.stderr)

    def test_xsr_three_access_groups_with_the_random_one_between(self):
        run = self.run_sim("xsr")
        self.assertEqual([t["label"] for t in run["subtests"]],
                         ["AG1 SEQ 1MiB write", "AG2 8KiB 0/100", "AG3 SEQ 1MiB write"])
        counts = [sum(1 for r in run["rounds"] if r["stage"] == s) for s in range(3)]
        self.assertEqual(counts, [480, 360, 480])
        bw = [sum(r["bytes_per_second"] for r in run["rounds"] if r["stage"] == s) / counts[s] for s in range(3)]
        # Each group's last 5 rounds: the drive's sustained (here thermally
        # throttled) sequential rate, the random writes' GC-bound one below it.
        final = [sum([r["bytes_per_second"] for r in run["rounds"] if r["stage"] == s][-5:]) / 5 for s in range(3)]
        self.assertLess(final[1], 0.6 * final[0])
        self.assertAlmostEqual(final[2], final[0], delta=0.05 * final[0])
        self.assertIn('id="rate-by-stage"', self.page)
        self.assertIn('id="stage-table"', self.page)
        print("xsr: %.0f / %.0f / %.0f MB/s" % tuple(b / 1e6 for b in bw), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
