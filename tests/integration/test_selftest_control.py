"""nvmonctl selftest against a running daemon on simulated drives: a start
on an idle drive runs an extended test that /metrics shows in progress, an
abort ends it as aborted_command, and a start on a drive a [[job]] is
using is refused with the reason."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, nvmonctl, sim, table, wait_for  # noqa: E402

CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    table("[clock]", mode="accelerated", factor=60),
    sim("idle", "SIM-IDLE", "datacenter"),
    sim("busy", "SIM-BUSY", "datacenter"),
    # Light random reads for hours: the drive is in use and stays cool.
    table("[[job]]", name="reader", target="sim:SIM-BUSY", engine="sim", pattern="random", bs="4KiB",
          read_pct=100, queue_depth=1, runtime="10h"),
    poll_interval="10s")


class SelfTestControl(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="nvmond-selftest-")
        cls.sock = os.path.join(cls.dir, "control.sock")
        cls.d = Daemon(CONFIG.replace("@SOCKET@", cls.sock), workdir=cls.dir).start()
        wait_for(lambda: os.path.exists(cls.sock), 10, "the control socket")
        cls.d.wait_metric(lambda m: get(m, "nvme_self_test_in_progress", serial="SIM-IDLE") == 0
                          and get(m, "nvme_self_test_in_progress", serial="SIM-BUSY") == 0,
                          30, "both drives' self-test logs")

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def ctl(self, *args):
        return nvmonctl("--socket", self.sock, *args)

    def test_start_then_abort_on_an_idle_drive_gives_an_aborted_result(self):
        r = self.ctl("selftest", "start", "SIM-IDLE", "--extended")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("extended test started", r.stdout)
        self.d.wait_metric(lambda m: get(m, "nvme_self_test_in_progress", serial="SIM-IDLE") == 1, 30,
                           "the extended test to show as running")
        again = self.ctl("selftest", "start", "SIM-IDLE")
        self.assertEqual(again.returncode, 1, again.stdout + again.stderr)
        # The daemon knows the drive is testing and refuses before the drive would.
        self.assertIn("drive SIM-IDLE is running an extended self-test (started at", again.stderr)

        r = self.ctl("selftest", "abort", "SIM-IDLE")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.d.wait_metric(lambda m: get(m, "nvme_self_test_last_result", serial="SIM-IDLE", kind="extended",
                                         result="aborted_command") == 1
                           and get(m, "nvme_self_test_in_progress", serial="SIM-IDLE") == 0,
                           30, "the aborted extended test as the newest result")
        status = self.ctl("--json", "selftest", "status", "SIM-IDLE")
        self.assertEqual(status.returncode, 0, status.stderr)
        reply = json.loads(status.stdout)
        self.assertIsNone(reply["running"])
        self.assertEqual((reply["results"][0]["kind"], reply["results"][0]["result"]), ("extended", "aborted_command"))
        human = self.ctl("selftest", "status", "SIM-IDLE")
        self.assertIn("aborted_command", human.stdout)

    def test_start_on_a_drive_a_job_uses_is_refused(self):
        r = self.ctl("selftest", "start", "SIM-BUSY")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("in use by job reader", r.stderr)
        self.assertEqual(get(self.d.metrics(), "nvme_self_test_in_progress", serial="SIM-BUSY"), 0)

    def test_an_unknown_drive_is_refused_naming_where_drives_are_listed(self):
        r = self.ctl("selftest", "status", "SIM-NONE")
        self.assertEqual(r.returncode, 1)
        self.assertIn("nvmonctl status lists the drives", r.stderr)


if __name__ == "__main__":
    unittest.main()
