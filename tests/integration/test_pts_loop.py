"""PTS tests with real I/O: io_uring on a loop device over a file in
/dev/shm (needs root for losetup; skipped otherwise). A short IOPS matrix
(one element per round, seconds long) with purge and preconditioning, a
short WSAT, CBW and DIRTH, each producing run.json."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

NVMONCTL = os.environ["NVMONCTL"]


class LoopDevice:
    """A loop device over a sparse file in a fresh directory (in /dev/shm
    when there is one), and a config whose [safety] allows that directory.
    A mixin without tests of its own, so other modules reuse it."""
    SIZE = 128 << 20

    def setUp(self):
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.dir = tempfile.mkdtemp(prefix="pts-loop-", dir=base)
        self.img = os.path.join(self.dir, "disk.img")
        with open(self.img, "wb") as f:
            f.truncate(self.SIZE)
        self.loop = subprocess.run(["losetup", "--find", "--show", self.img], check=True,
                                   capture_output=True, text=True).stdout.strip()
        self.config = os.path.join(self.dir, "nvmond.toml")
        with open(self.config, "w") as f:
            f.write(f'[safety]\nallow_dirs = ["{self.dir}"]\n')

    def tearDown(self):
        subprocess.run(["losetup", "-d", self.loop])
        shutil.rmtree(self.dir, ignore_errors=True)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("losetup"), "needs root and losetup")
class LoopDeviceTest(LoopDevice, unittest.TestCase):

    def run_test(self, test, *sets):
        out = os.path.join(self.dir, test)
        args = [NVMONCTL, "test", "run", test, "--target", self.loop, "--config", self.config, "--out", out]
        for s in sets:
            args += ["--set", s]
        r = subprocess.run(args, capture_output=True, text=True, timeout=240)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        with open(os.path.join(out, "report.html")) as f:
            self.page = f.read()  # the report of the real run, beside its run.json
        with open(os.path.join(out, "run.json")) as f:
            return json.load(f)

    def svg(self, chart):
        start = self.page.find(f'<svg xmlns="http://www.w3.org/2000/svg" id="{chart}"')
        self.assertGreaterEqual(start, 0, f"no {chart} chart")
        return self.page[start:self.page.index("</svg>", start)]

    def series_points(self, svg, name):
        g = svg.index(f'<g class="series" data-series="{name}"')
        group = svg[g:svg.index("</g>", g)]
        return [p for pts in re.findall(r'<polyline points="([^"]*)"', group) for p in pts.split()]

    def assert_shaded_over_the_window(self, run):
        """The report's steady-state spans (one per sub-test where a test has
        several) lie over their windows' rounds of the measured stage
        (run.json counts rounds per stage, the chart by execution index),
        none of them a preconditioning round."""
        states = [t["steady_state"] for t in run.get("subtests", [])] if len(run.get("subtests", [])) > 1 \
            else [run["steady_state"]]
        spans = re.findall(r'<rect class="x-span steady-state"[^>]*>', self.svg("throughput"))
        self.assertEqual(len(spans), len(states))
        for ss, span in zip(states, spans):
            first, last = ss["window"]
            in_window = [r for r in run["rounds"] if r["stage"] == ss["stage"] and first <= r["round"] <= last]
            self.assertEqual(len({r["round"] for r in in_window}), last - first + 1)
            self.assertEqual({r["phase"] for r in in_window}, {"test"})
            self.assertEqual(float(re.search(r'data-from="([^"]*)"', span).group(1)),
                             min(r["index"] for r in in_window))
            self.assertEqual(float(re.search(r'data-to="([^"]*)"', span).group(1)),
                             max(r["index"] for r in in_window))

    def test_a_short_iops_matrix_on_a_loop_device(self):
        run = self.run_test("iops", "block_sizes=4KiB", "read_pcts=65", "round=2s", "max_rounds=6",
                            "threads=2", "queue_depth=8")
        self.assertEqual(run["status"], "completed")
        self.assertEqual(run["clock"], "system")
        self.assertIn(run["purge"]["method"], ("deallocate", "zero-fill"))
        pre = run["preconditioning"][0]
        self.assertEqual(pre["kind"], "workload-independent")
        self.assertGreaterEqual(pre["bytes"], 2 * (128 << 20))
        tests = [r for r in run["rounds"] if r["phase"] == "test"]
        self.assertGreaterEqual(len(tests), 5)  # the steady-state window at least
        self.assertLessEqual(len(tests), 6)
        for r in tests:
            self.assertEqual(r["element"]["label"], "4KiB 65/35")
            self.assertGreater(r["ops"]["read"]["ops"], 0)
            self.assertGreater(r["ops"]["write"]["ops"], 0)
            self.assertEqual(r["ops"]["write"]["errors"], 0)
            self.assertAlmostEqual(r["seconds"], 2, delta=0.5)
            lat = r["ops"]["read"]["latency_s"]
            self.assertLessEqual(lat["p50"], lat["p99.99"])
        self.assertEqual(len(run["elements"]), 1)
        self.assertIn("reached", run["steady_state"])

    def test_the_report_shades_the_measured_rounds_after_preconditioning(self):
        run = self.run_test("iops", "block_sizes=4KiB", "read_pcts=65", "round=1s", "max_rounds=6",
                            "threads=2", "queue_depth=8", "wipc_multiple=1")
        self.assertEqual(run["status"], "completed")
        # The steady-state window counts rounds of the measured stage; the
        # shading lies over those rounds, which come after preconditioning.
        first, last = run["steady_state"]["window"]
        in_window = [r for r in run["rounds"] if r["phase"] == "test" and first <= r["round"] <= last]
        self.assertEqual(len(in_window), last - first + 1)
        self.assertGreater(in_window[0]["index"], in_window[0]["round"])
        span = re.search(r'<rect class="x-span steady-state"[^>]*>', self.svg("throughput")).group(0)
        self.assertEqual(float(re.search(r'data-from="([^"]*)"', span).group(1)), in_window[0]["index"])
        self.assertEqual(float(re.search(r'data-to="([^"]*)"', span).group(1)), in_window[-1]["index"])
        # The element's values are the measurement window's: IOPS its mean,
        # I/Os its sum, the maximum its slowest I/O.
        window = run["measurement_window"]
        self.assertEqual(window["steady_state"], run["steady_state"]["reached"])
        first, last = window["rounds"]
        measured = [r for r in run["rounds"]
                    if r["stage"] == window["stage"] and first <= r["round"] <= last]
        self.assertEqual(len(measured), last - first + 1)
        element = run["elements"][0]
        self.assertAlmostEqual(element["iops"], sum(r["iops"] for r in measured) / len(measured),
                               delta=1e-6 * element["iops"])
        for op in ("read", "write"):
            self.assertEqual(element["ops"][op]["latency_s"]["max"],
                             max(r["ops"][op]["latency_s"]["max"] for r in measured))
            self.assertEqual(element["ops"][op]["ops"], sum(r["ops"][op]["ops"] for r in measured))

    def test_a_short_wsat_on_a_loop_device(self):
        run = self.run_test("wsat", "rounds=6", "round=1s", "threads=2", "queue_depth=16")
        self.assertEqual(run["status"], "completed")
        self.assertEqual(len(run["rounds"]), 6)
        # The report: one point per round, the steady-state window where run.json has it.
        throughput = self.svg("throughput")
        self.assertEqual(len(self.series_points(throughput, "IOPS")), 6)
        first, last = run["steady_state"]["window"]
        span = re.search(r'<rect class="x-span steady-state"[^>]*>', throughput).group(0)
        self.assertEqual(float(re.search(r'data-from="([^"]*)"', span).group(1)), first)
        self.assertEqual(float(re.search(r'data-to="([^"]*)"', span).group(1)), last)
        for r in run["rounds"]:
            self.assertGreater(r["ops"]["write"]["ops"], 0)
            self.assertEqual(r["ops"].get("read", {}).get("ops", 0), 0)
        self.assertGreater(run["drive"]["host_bytes_written"], 0)
        self.assertTrue(run["target"]["serial"].startswith("loop:"))

    def test_a_fallback_purge_is_a_non_conformant_condition(self):
        run = self.run_test("wsat", "rounds=1", "round=1s", "threads=1", "queue_depth=4")
        self.assertIn(run["purge"]["method"], ("deallocate", "zero-fill"))
        names = {c["name"]: c["detail"] for c in run["conditions"]}
        # Beside the parameters this short run departs by (its rounds, its length).
        self.assertEqual(set(names) - {"parameter"}, {"purge-fallback", "write-cache-unknown"})
        self.assertIn(run["purge"]["method"], names["purge-fallback"])
        self.assertIn(self.loop, names["write-cache-unknown"])
        header = self.page[:self.page.index('<section id="run">')]
        self.assertIn("NON-CONFORMANT", header)
        self.assertIn("purge-fallback", header)

    def test_throughput_runs_a_sub_test_per_block_size(self):
        run = self.run_test("throughput", "block_sizes=1MiB,128KiB", "round=1s", "max_rounds=5",
                            "wipc_multiple=1", "queue_depth=4")
        self.assertEqual(run["status"], "completed")
        self.assertEqual([s["label"] for s in run["subtests"]], ["1MiB", "128KiB"])
        for sub, bs in zip(run["subtests"], (1 << 20, 128 << 10)):
            self.assertEqual(sub["steady_state"]["variable"], "bytes_per_second")
            self.assertEqual(sub["steady_state"]["element"], f"SEQ {'1MiB' if bs == 1 << 20 else '128KiB'} write")
            stage = [r for r in run["rounds"] if r["stage"] == sub["stage"]]
            self.assertTrue(stage)
            self.assertEqual({r["element"]["bs"] for r in stage}, {bs})
            # Within a round, reads before writes.
            self.assertEqual([r["element"]["read_pct"] for r in stage[:2]], [100, 0])
            wipc = [r for r in run["rounds"] if r["stage"] == sub["stage"] - 1]
            self.assertEqual({r["element"]["bs"] for r in wipc}, {bs})
            self.assertGreaterEqual(sum(r["bytes_written"] for r in wipc), 128 << 20)
        # The second sub-test purged again before its preconditioning.
        self.assertEqual([p["stage"] for p in run["purges"]], [run["subtests"][1]["stage"] - 1])
        self.assertEqual(len(run["preconditioning"]), 2)
        self.assert_shaded_over_the_window(run)

    def test_a_short_latency_run_shades_its_measured_rounds(self):
        run = self.run_test("latency", "block_sizes=4KiB", "read_pcts=0", "round=1s", "max_rounds=5",
                            "wipc_multiple=1")
        self.assertEqual(run["status"], "completed")
        self.assertTrue(run["preconditioning"])
        self.assertGreater(min(r["index"] for r in run["rounds"] if r["phase"] == "test"), 0)
        self.assert_shaded_over_the_window(run)

    def test_a_short_cbw_preconditions_sweeps_and_reports_its_histograms(self):
        # The pre-write between sweep rounds: test_pts_cbw_loop.
        run = self.run_test("cbw", "round=1s", "max_rounds=5", "threads=2", "queue_depth=4",
                            "thread_counts=2,1", "queue_depths=4,1", "histogram_round=2s", "prewrite_rounds=0")
        self.assertEqual(run["status"], "completed")
        self.assertEqual([p["kind"] for p in run["preconditioning"]], ["workload-dependent"])
        pre = [r for r in run["rounds"] if r["phase"] == "precondition"]
        self.assertGreaterEqual(len(pre), 5)
        self.assertEqual({r["element"]["label"] for r in pre}, {"CBW 0/100 T2Q4"})
        self.assertEqual(sum(r["ops"].get("read", {}).get("ops", 0) for r in pre), 0)
        self.assertEqual(len(run["elements"]), 4)
        points = run["response_time_histograms"]
        self.assertEqual([p["point"] for p in points], ["max", "mid", "min"])
        # Each histogram is a dedicated 2 s round of real I/O at its point,
        # run after the sweep, counting exactly that round's I/Os.
        dedicated = [r for r in run["rounds"] if r["phase"] == "histogram"]
        self.assertEqual([r["element"]["label"] for r in dedicated], [p["label"] for p in points])
        self.assertGreater(min(r["index"] for r in dedicated),
                           max(r["index"] for r in run["rounds"] if r["phase"] == "test"))
        for p, r in zip(points, dedicated):
            self.assertEqual(p["source"], "dedicated round")
            self.assertAlmostEqual(r["seconds"], 2, delta=0.5)
            for op in ("read", "write"):
                self.assertGreater(sum(p["ops"][op]["counts"]), 0, (p["label"], op))
                self.assertEqual(sum(p["ops"][op]["counts"]), r["ops"][op]["ops"], (p["label"], op))
                self.svg(f"rt-histogram-{p['point']}-{op}")
        self.assertIn("From a dedicated 2 s round after the sweep.", self.page)
        self.svg("demand-intensity")
        self.assert_shaded_over_the_window(run)

    def test_a_short_dirth_preconditions_with_its_writes_sweeps_and_reports_write_histograms(self):
        run = self.run_test("dirth", "round=1s", "max_rounds=5", "threads=2", "queue_depth=8",
                            "thread_counts=2,1", "queue_depths=8,1", "histogram_rounds=false")
        self.assertEqual(run["status"], "completed")
        self.assertEqual([p["kind"] for p in run["preconditioning"]], ["workload-dependent"])
        pre = [r for r in run["rounds"] if r["phase"] == "precondition"]
        self.assertGreaterEqual(len(pre), 5)
        self.assertEqual({r["element"]["label"] for r in pre}, {"4KiB 0/100 T2Q8"})
        self.assertEqual(sum(r["ops"].get("read", {}).get("ops", 0) for r in pre), 0)
        self.assertGreater(sum(r["ops"]["write"]["ops"] for r in pre), 0)
        self.assertEqual(run["steady_state"]["element"], "4KiB 0/100 T2Q8")
        self.assertEqual([e["label"] for e in run["elements"]],
                         ["4KiB 0/100 T2Q8", "4KiB 0/100 T2Q1", "4KiB 0/100 T1Q8", "4KiB 0/100 T1Q1"])
        points = run["response_time_histograms"]
        self.assertEqual([p["point"] for p in points], ["max", "mid", "min"])
        for p in points:
            self.assertEqual(list(p["ops"]), ["write"], p["label"])
            self.assertGreater(sum(p["ops"]["write"]["counts"]), 0, p["label"])
            self.svg(f"rt-histogram-{p['point']}-write")
            self.assertNotIn(f'id="rt-histogram-{p["point"]}-read"', self.page)
        curve = self.svg("demand-intensity")
        for t in ("T2", "T1"):
            self.assertEqual(len(self.series_points(curve, t)), 2, t)
        self.assert_shaded_over_the_window(run)


    def test_a_short_hir_idles_between_its_bursts_for_real(self):
        run = self.run_test("hir", "round=1s", "max_rounds=8", "burst=1s", "idle_seconds=1,2", "bursts=3",
                            "baseline_bursts=2")
        self.assertEqual(run["status"], "completed")
        self.assertEqual(run["steady_state"]["stage"], 0)
        waits = {1: 1, 3: 2}
        for stage, idle in waits.items():
            bursts = [r for r in run["rounds"] if r["stage"] == stage]
            self.assertEqual(len(bursts), 3)
            for a, b in zip(bursts, bursts[1:]):
                # The device was left alone for the idle: no burst starts before it is over.
                gap = (b["started_ns"] - a["started_ns"]) / 1e9 - a["seconds"]
                self.assertGreaterEqual(gap, idle - 0.05, (stage, gap))
                self.assertLess(gap, idle + 1.0, (stage, gap))
            self.assertGreater(sum(r["ops"]["write"]["ops"] for r in bursts), 0)
        self.assertEqual(len([r for r in run["rounds"] if r["stage"] in (2, 4)]), 4)
        svg = self.svg("rate-by-stage")
        self.assertEqual(svg.count('<rect class="x-span idle"'), 2)
        self.assertEqual(len(self.series_points(svg, "4KiB 0/100 1s + idle 2s")), 3)

    def test_a_short_xsr_runs_its_three_access_groups_in_order(self):
        run = self.run_test("xsr", "round=1s", "seq_duration=3s", "rnd_duration=3s", "recovery_duration=3s")
        self.assertEqual(run["status"], "completed")
        self.assertEqual([t["label"] for t in run["subtests"]],
                         ["AG1 SEQ 1MiB write", "AG2 8KiB 0/100", "AG3 SEQ 1MiB write"])
        stages = [r["stage"] for r in run["rounds"]]
        self.assertEqual(stages, [0, 0, 0, 1, 1, 1, 2, 2, 2])
        for r in run["rounds"]:
            self.assertEqual(r["element"]["bs"], 8192 if r["stage"] == 1 else 1 << 20)
            self.assertGreater(r["ops"]["write"]["ops"], 0)
            self.assertEqual(r["ops"].get("read", {}).get("ops", 0), 0)
        svg = self.svg("rate-by-stage")
        self.assertEqual(svg.count('<rect class="x-span group"'), 3)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("losetup"), "needs root and losetup")
class FourKibLoopDeviceTest(unittest.TestCase):
    """A loop device with 4096-byte logical blocks, as a 4Kn namespace has."""

    def setUp(self):
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.dir = tempfile.mkdtemp(prefix="pts-loop4k-", dir=base)
        self.img = os.path.join(self.dir, "disk.img")
        self.content = bytes(range(256)) * ((32 << 20) // 256)
        with open(self.img, "wb") as f:
            f.write(self.content)
        self.loop = subprocess.run(["losetup", "--find", "--show", "--sector-size", "4096", self.img],
                                   check=True, capture_output=True, text=True).stdout.strip()
        self.config = os.path.join(self.dir, "nvmond.toml")
        with open(self.config, "w") as f:
            f.write(f'[safety]\nallow_dirs = ["{self.dir}"]\n')

    def tearDown(self):
        if self.loop:
            subprocess.run(["losetup", "-d", self.loop])
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_block_size_below_the_logical_block_size_is_refused_before_any_io(self):
        out = os.path.join(self.dir, "out")
        r = subprocess.run([NVMONCTL, "test", "run", "iops", "--target", self.loop, "--config", self.config,
                            "--out", out, "--set", "block_sizes=4KiB,512", "--set", "read_pcts=0"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 1, r.stderr + r.stdout)
        for part in (self.loop, "512 B", "4096 B", "block_sizes"):
            self.assertIn(part, r.stderr + r.stdout)
        self.assertFalse(os.path.exists(os.path.join(out, "run.json")))
        subprocess.run(["losetup", "-d", self.loop], check=True)
        self.loop = None
        with open(self.img, "rb") as f:
            self.assertEqual(f.read(), self.content, "the refused run purged or wrote the device")

    def test_cbw_whose_mix_has_fixed_sub_4kib_blocks_is_refused_and_4kib_blocks_run(self):
        out = os.path.join(self.dir, "cbw")
        r = subprocess.run([NVMONCTL, "test", "run", "cbw", "--target", self.loop, "--config", self.config,
                            "--out", out, "--set", "round=1s"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 1, r.stderr + r.stdout)
        for part in (self.loop, "512 B", "4096 B", "fixed"):
            self.assertIn(part, r.stderr + r.stdout)
        self.assertFalse(os.path.exists(os.path.join(out, "run.json")))
        out = os.path.join(self.dir, "iops")
        r = subprocess.run([NVMONCTL, "test", "run", "iops", "--target", self.loop, "--config", self.config,
                            "--out", out, "--set", "block_sizes=4KiB", "--set", "read_pcts=0", "--set", "round=1s",
                            "--set", "max_rounds=4", "--set", "window=4",
                            "--set", "precondition=false"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
        self.assertGreater(run["elements"][0]["ops"]["write"]["ops"], 0)


if __name__ == "__main__":
    unittest.main()
