"""CBW on real I/O: a short run on a loop device over a file in /dev/shm
(needs root for losetup; skipped otherwise), watched by the kernel's own
counters of that device (/sys/block/loopN/stat) while it runs. Its
pre-write before each sweep round writes and never reads, its dedicated
histogram rounds run at the max, mid and min IOPS points after the sweep,
and neither counts in the sweep's results. About 30 s."""
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_pts_loop import LoopDevice  # noqa: E402

NVMONCTL = os.environ["NVMONCTL"]


class DeviceStat:
    """Samples a block device's completed reads and writes (fields 1 and 5
    of /sys/block/NAME/stat) every few milliseconds on a thread of its own,
    each sample with the wall clock read just before and just after it."""

    def __init__(self, device):
        self.path = f"/sys/block/{os.path.basename(device)}/stat"
        self.samples = []  # (ns before, reads, writes, ns after)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._done.is_set():
            before = time.time_ns()
            with open(self.path) as f:
                fields = f.read().split()
            self.samples.append((before, int(fields[0]), int(fields[4]), time.time_ns()))
            self._done.wait(0.005)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()

    def during(self, r):
        """The reads and writes the device completed between the first and
        the last sample taken wholly inside round `r` (from its start until
        its measured length has passed: no other round's I/O is in there),
        or None with fewer than two such samples."""
        start = r["started_ns"]
        end = start + int(r["seconds"] * 1e9)
        inside = [s for s in self.samples if s[0] >= start and s[3] <= end]
        if len(inside) < 2:
            return None
        return inside[-1][1] - inside[0][1], inside[-1][2] - inside[0][2]


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("losetup"), "needs root and losetup")
class CbwOnALoopDeviceTest(LoopDevice, unittest.TestCase):

    def run_cbw(self, *sets):
        out = os.path.join(self.dir, "cbw")
        args = [NVMONCTL, "test", "run", "cbw", "--target", self.loop, "--config", self.config, "--out", out]
        for s in sets:
            args += ["--set", s]
        with DeviceStat(self.loop) as stat:
            r = subprocess.run(args, capture_output=True, text=True, timeout=240)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
        with open(os.path.join(out, "report.html")) as f:
            return run, f.read(), stat

    def test_pre_writes_write_alone_before_each_sweep_round_and_histogram_rounds_follow_the_sweep(self):
        run, page, stat = self.run_cbw("round=1s", "window=4", "max_rounds=4", "threads=2", "queue_depth=8",
                                       "thread_counts=1", "queue_depths=8,2,1", "prewrite_rounds=2",
                                       "histogram_round=1s")
        self.assertEqual(run["status"], "completed")
        rounds = run["rounds"]
        sweep = [r for r in rounds if r["phase"] == "test"]
        prewrites = [r for r in rounds if r["phase"] == "prewrite"]
        dedicated = [r for r in rounds if r["phase"] == "histogram"]
        sweep_rounds = sorted({r["round"] for r in sweep})
        self.assertGreaterEqual(len(sweep_rounds), 4)

        # Two pre-writes right before each sweep round, none after the last.
        self.assertEqual(len(prewrites), 2 * len(sweep_rounds))
        for k in sweep_rounds:
            first = min(r["index"] for r in sweep if r["round"] == k)
            self.assertEqual([r["index"] for r in prewrites if r["round"] == k], [first - 2, first - 1], k)
        self.assertLess(max(r["index"] for r in prewrites), max(r["index"] for r in sweep))

        # The device itself saw writes and no reads during each pre-write,
        # and reads during each 40/60 sweep round (so the check sees reads).
        for r in prewrites:
            self.assertEqual(r["element"]["label"], "CBW 0/100 T2Q8 pre-write")
            self.assertEqual(r["ops"].get("read", {}).get("ops", 0), 0)
            seen = stat.during(r)
            self.assertIsNotNone(seen, f"no stat samples inside pre-write round {r['index']}")
            reads, writes = seen
            self.assertEqual(reads, 0, r["index"])
            self.assertGreater(writes, 0, r["index"])
        for r in sweep:
            seen = stat.during(r)
            self.assertIsNotNone(seen, f"no stat samples inside sweep round {r['index']}")
            self.assertGreater(seen[0], 0, r["index"])

        # The histogram rounds: after the sweep and its pre-writes, one at
        # each of the max, mid and min points, each histogram that round's.
        points = run["response_time_histograms"]
        self.assertEqual([p["point"] for p in points], ["max", "mid", "min"])
        self.assertEqual([r["element"]["label"] for r in dedicated], [p["label"] for p in points])
        self.assertGreater(min(r["index"] for r in dedicated), max(r["index"] for r in sweep + prewrites))
        for p, r in zip(points, dedicated):
            self.assertEqual(p["source"], "dedicated round")
            for op in ("read", "write"):
                self.assertEqual(sum(p["ops"][op]["counts"]), r["ops"][op]["ops"], (p["label"], op))

        # Neither enters the sweep's results: its elements, steady state,
        # window and latency histogram count its own rounds alone.
        labels = ["CBW 40/60 T1Q8", "CBW 40/60 T1Q2", "CBW 40/60 T1Q1"]
        self.assertEqual([e["label"] for e in run["elements"]], labels)
        self.assertEqual(run["steady_state"]["element"], "CBW 40/60 T1Q8")
        first, last = run["measurement_window"]["rounds"]
        self.assertEqual(run["measurement_window"]["stage"], sweep[0]["stage"])
        for e in run["elements"]:
            mine = [r for r in sweep if r["element"]["label"] == e["label"] and first <= r["round"] <= last]
            self.assertEqual(e["rounds_averaged"], len(mine), e["label"])
            self.assertEqual(e["ops"]["write"]["ops"], sum(r["ops"]["write"]["ops"] for r in mine), e["label"])
        self.assertEqual(sum(run["histogram"]["counts"]), sum(sum(r["histogram_counts"]) for r in sweep))
        self.assertIn(f"{len(prewrites)} rounds (CBW 0/100 T2Q8 pre-write), 2 before each of "
                      f"{len(sweep_rounds)} sweep rounds", page)
        self.assertIn("prewrite_rounds=2 (ECW scripts: 5 \u00d7 round)",
                      [c["detail"] for c in run["conditions"]])


if __name__ == "__main__":
    unittest.main()
