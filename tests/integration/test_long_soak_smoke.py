"""bench/long_soak.py's short version: two minutes of a real-clock WSAT on a
loop device, a rate-limited job on another and a small simulated fleet,
sampled every 15 s. It checks that the bench measures what its result file
claims (samples of the live process, rounds read from the store, scrapes
answered), not how fast anything was: the numbers belong to the long run in
bench/results/."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("NVMOND_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("losetup") and shutil.which("curl"),
                     "needs root, losetup and curl")
@unittest.skipIf(os.environ.get("NVMOND_SANITIZED") == "1", "a benchmark's smoke run: the plain build's")
class LongSoakSmokeTest(unittest.TestCase):
    def test_two_minutes_sampled_into_a_result_file(self):
        out_dir = tempfile.mkdtemp(prefix="long-soak-smoke-")
        self.addCleanup(shutil.rmtree, out_dir, True)
        out = os.path.join(out_dir, "smoke.json")
        r = subprocess.run([sys.executable, os.path.join(SOURCE, "bench", "long_soak.py"),
                            "--duration", "2m", "--every", "15s", "--round", "5s", "--fleet", "4",
                            "--scrapes", "5", "--disk", "64MiB", "--out", out],
                           capture_output=True, text=True, timeout=280, env=dict(os.environ))
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        with open(out) as f:
            result = json.load(f)
        for key in ("duration_s", "rss_slope_bytes_per_h", "fd_slope_per_h", "thread_slope_per_h",
                    "scrape_p99_ms", "rounds", "samples"):
            self.assertIn(key, result)
        samples = result["samples"]
        self.assertGreaterEqual(result["duration_s"], 120)
        self.assertGreaterEqual(len(samples), 9)  # one at 0 s, then every 15 s to 120 s
        # Every sample read the live daemon: a real RSS, its descriptors and threads.
        for s in samples:
            self.assertGreater(s["rss_bytes"], 1 << 20)
            self.assertGreater(s["fds"], 3)
            self.assertGreater(s["threads"], 1)
            self.assertEqual(len(s["scrape_all_ms"]["identity"]), 5)
            self.assertEqual(len(s["scrape_all_ms"]["gzip"]), 5)
            self.assertIn("runs.db", s["files_bytes"])
        # The soak ran on its real clock: rounds finished and each carries its
        # measured length, read from the run store.
        rounds = result["rounds"]
        self.assertGreater(rounds["finished"], 5)
        self.assertEqual(len(rounds["seconds"]), rounds["finished"])
        self.assertGreater(samples[-1]["rounds_finished"], samples[0]["rounds_finished"])
        self.assertTrue(os.path.exists(os.path.join(out_dir, "smoke.svg")))


if __name__ == "__main__":
    unittest.main()
