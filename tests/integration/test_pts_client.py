"""The Client profile (PTS-C) end to end through `nvmonctl test run
--profile client`: a whole IOPS test on a simulated drive, and real I/O on a
loop device, where the backing file itself (SEEK_DATA/SEEK_HOLE) shows that
the run wrote the 75 % active range and nothing beyond it. Loop-device tests
need root and losetup and are skipped otherwise."""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import nvmonctl  # noqa: E402
from test_pts_loop import LoopDevice  # noqa: E402
from test_pts_sequential_coverage import MiB, holes_by_mib  # noqa: E402


def load_run(out):
    with open(os.path.join(out, "run.json")) as f:
        run = json.load(f)
    with open(os.path.join(out, "report.html")) as f:
        return run, f.read()


class ClientOnASimulatedDrive(unittest.TestCase):
    def test_a_client_iops_run_on_a_simulated_drive_runs_pts_c_conditions(self):
        out = tempfile.mkdtemp(prefix="pts-client-sim-")
        r = nvmonctl("test", "run", "iops", "--profile", "client", "--target", "sim:consumer", "--out", out,
                     timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout[-2000:])
        run, page = load_run(out)
        self.assertEqual(run["status"], "completed")
        self.assertEqual(run["profile"], "client")
        params = run["parameters"]
        self.assertEqual((params["range"], params["threads"], params["queue_depth"]), ("0.75", "2", "16"))
        target = run["target"]
        self.assertEqual(target["tested_range_bytes"], int(0.75 * target["capacity_bytes"]))
        tests = [r for r in run["rounds"] if r["phase"] == "test"]
        self.assertEqual(len(tests) % 56, 0)
        self.assertEqual({(r["element"]["threads"], r["element"]["queue_depth"]) for r in tests}, {(2, 16)})
        pre = run["preconditioning"][0]
        self.assertEqual(pre["kind"], "workload-independent")
        self.assertGreaterEqual(pre["bytes"], 2 * target["capacity_bytes"])
        variables = [v["element"] for v in run["steady_state"]["variables"]]
        self.assertEqual(variables, ["4KiB 0/100", "64KiB 65/35", "1MiB 100/0"])
        # The simulated drive models no write cache: PTS-C's "enabled" cannot
        # be had, and the run says so rather than passing as conformant.
        self.assertEqual(run["write_cache"]["during"], False)
        self.assertEqual([c["name"] for c in run["conditions"]], ["write-cache-disabled"])
        self.assertIn("PTS-C 2.0.x", page)
        self.assertIn("client — PTS-C 2.0.x: active range 75 %, write cache enabled", page)
        self.assertIn("NON-CONFORMANT", page)

    def test_a_test_the_profile_lacks_and_an_unknown_profile_are_refused_before_any_run(self):
        out = tempfile.mkdtemp(prefix="pts-client-refused-")
        r = nvmonctl("test", "run", "cbw", "--profile", "client", "--target", "sim:consumer", "--out", out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cbw is not a test of the client profile (PTS-C 2.0.x; its tests: iops, throughput, "
                      "latency, wsat)", r.stderr)
        r = nvmonctl("test", "run", "iops", "--profile", "clinet", "--target", "sim:consumer", "--out", out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn('unknown profile "clinet" (known: enterprise, client)', r.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "runs.db")))


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("losetup"), "needs root and losetup")
class ClientOnALoopDevice(LoopDevice, unittest.TestCase):
    SIZE = 128 * MiB

    def run_client(self, test, *sets):
        out = os.path.join(self.dir, test)
        args = ["test", "run", test, "--profile", "client", "--target", self.loop, "--config", self.config,
                "--out", out]
        for s in sets:
            args += ["--set", s]
        r = nvmonctl(*args, timeout=240)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        return load_run(out)

    def test_a_client_iops_run_writes_only_the_first_75_percent_of_a_loop_device(self):
        # Writes only (0/100), so every I/O of the test lands as data too.
        run, page = self.run_client("iops", "block_sizes=4KiB", "read_pcts=0", "round=1s", "max_rounds=6",
                                    "wipc_multiple=1")
        self.assertEqual(run["status"], "completed")
        self.assertEqual(run["profile"], "client")
        active = self.SIZE * 3 // 4
        self.assertEqual(run["target"]["tested_range_bytes"], active)
        for r in run["rounds"]:
            want = (1, 32) if r["phase"] == "precondition" else (2, 16)
            self.assertEqual((r["element"]["threads"], r["element"]["queue_depth"]), want, r["element"])
        # Read back from the file behind the device: the purge left it empty,
        # then the run wrote every MiB of the active range and none after it.
        holes = set(holes_by_mib(self.img, self.SIZE))
        written_outside = [u for u in range(active // MiB, self.SIZE // MiB) if u not in holes]
        missing_inside = [u for u in range(active // MiB) if u in holes]
        self.assertEqual(written_outside, [], "written beyond the 75 % active range")
        self.assertEqual(missing_inside, [], "MiB of the active range never written")
        # A loop device cannot tell its write cache: named, not passed over.
        names = {c["name"] for c in run["conditions"]}
        self.assertIn("write-cache-unknown", names)
        self.assertIn("PTS-C 2.0.x", page)

    def test_client_throughput_is_one_1mib_sub_test(self):
        run, _ = self.run_client("throughput", "round=1s", "max_rounds=6", "wipc_multiple=1")
        self.assertEqual(run["status"], "completed")
        self.assertEqual(run["parameters"]["block_sizes"], "1048576")
        self.assertNotIn("subtests", run)  # one sub-test: the run's own steady state and window
        self.assertEqual(run["steady_state"]["element"], "SEQ 1MiB write")
        labels = {r["element"]["label"] for r in run["rounds"] if r["phase"] == "test"}
        self.assertEqual(labels, {"SEQ 1MiB read", "SEQ 1MiB write"})


if __name__ == "__main__":
    unittest.main()
