"""nvmonctl status names what the drive's own evidence says: a simulated
drive whose media fails now and then (entries of the media class in its
Error Information log) and whose link trained narrower than it can shows
both among its warnings, and `status --json` carries the count that the
error-log series sum up to (media and path classes), beside a drive with
a clean log whose count is 0."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, nvmonctl, sim, table, wait_for  # noqa: E402

CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    # An hour of drive time a second: a media error every simulated hour.
    table("[clock]", mode="accelerated", factor=3600),
    sim("worn", "SIM-WORN", "consumer-heatsink", media_error_interval="1h", degraded_link=True),
    sim("clean", "SIM-CLEAN", "datacenter"),
    poll_interval="10s")


def media_path(m, serial):
    return sum(get(m, "nvme_error_log_read_entries_total", serial=serial, status_class=c) or 0
               for c in ("media", "path"))


class StatusEvidence(unittest.TestCase):
    def test_status_shows_the_error_logs_media_errors_and_a_degraded_link(self):
        workdir = tempfile.mkdtemp(prefix="nvmond-status-")
        sock = os.path.join(workdir, "control.sock")
        d = Daemon(CONFIG.replace("@SOCKET@", sock), workdir=workdir).start()
        try:
            wait_for(lambda: os.path.exists(sock), 10, "the control socket")
            d.wait_metric(lambda m: media_path(m, "SIM-WORN") >= 2
                          and get(m, "nvme_error_log_read_entries_total", serial="SIM-CLEAN",
                                  status_class="media") is not None,
                          60, "media errors in the worn drive's log")

            # The count moves while the drive polls: the daemon's answer must
            # lie between two scrapes taken around it.
            def consistent():
                before = media_path(d.metrics(), "SIM-WORN")
                r = nvmonctl("--socket", sock, "status", "--json")
                after = media_path(d.metrics(), "SIM-WORN")
                self.assertEqual(r.returncode, 0, r.stderr)
                drives = {x["serial"]: x for x in json.loads(r.stdout)["drives"]}
                n = drives["SIM-WORN"]["media_path_errors"]
                return drives if before <= n <= after else None
            drives = wait_for(consistent, 30, "a status between two scrapes")
            self.assertGreaterEqual(drives["SIM-WORN"]["media_path_errors"], 2)
            self.assertTrue(drives["SIM-WORN"]["link_degraded"])
            self.assertEqual(drives["SIM-CLEAN"]["media_path_errors"], 0)
            self.assertFalse(drives["SIM-CLEAN"]["link_degraded"])

            text = nvmonctl("--socket", sock, "status")
            self.assertEqual(text.returncode, 0, text.stderr)
            rows = {line.split()[0]: line for line in text.stdout.splitlines() if line.startswith("SIM-")}
            self.assertRegex(rows["SIM-WORN"], r"pcie_link_degraded,error_log_media_path=\d+")
            self.assertNotIn("error_log", rows["SIM-CLEAN"])
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
