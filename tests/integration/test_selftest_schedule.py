"""A [[selftest]] schedule on an accelerated clock: an extended test runs on
a simulated drive whose media fails, /metrics then shows the failed result
that NvmeSelfTestFailed matches, the daemon records the outcome, and a
restart does not start the once-schedule again."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, sim, table, wait_for  # noqa: E402

CONFIG = config(
    table("[clock]", mode="accelerated", factor=300),
    sim("st", "SIM-ST", "datacenter", self_test_failure=True),
    table("[[selftest]]", name="weekly-extended", drives=["SIM-ST"], kind="extended", schedule="once"),
    poll_interval="10s")


def polls(m):
    return get(m, "nvmond_collections_total", serial="SIM-ST") or 0


class SelfTestSchedule(unittest.TestCase):
    def test_a_scheduled_extended_test_fails_and_is_not_repeated_after_a_restart(self):
        d = Daemon(CONFIG).start()
        try:
            d.wait_metric(lambda m: get(m, "nvme_self_test_in_progress", serial="SIM-ST") == 1, 30,
                          "the scheduled test to run")
            m = d.wait_metric(lambda m: get(m, "nvme_self_test_in_progress", serial="SIM-ST") == 0, 120,
                              "the extended test to end")
            # What the alert's expression matches: the newest result failed.
            self.assertEqual(get(m, "nvme_self_test_last_result", serial="SIM-ST", kind="extended",
                                 result="failed_segments"), 1)
            self.assertEqual(get(m, "nvme_self_test_failed_segment", serial="SIM-ST"), 5)
            self.assertGreater(get(m, "nvme_self_test_last_power_on_seconds", serial="SIM-ST"), 0,
                               "the result of this run, not the drive's history")
            wait_for(lambda: "self-test started by schedule ended: failed_segments" in d.log_text(), 30,
                     "the outcome recorded")
        finally:
            self.assertEqual(d.stop(), 0)
        log_before = len(d.log_text())
        d.start()
        try:
            first = polls(d.wait_metric(lambda m: polls(m) > 0, 30, "the drive polled again"))
            # Several scheduler ticks (one a second) later, still no test.
            m = d.wait_metric(lambda m: polls(m) >= first + 100, 60, "a hundred more polls")
            self.assertEqual(get(m, "nvme_self_test_in_progress", serial="SIM-ST"), 0)
            self.assertNotIn("self-test started on SIM-ST", d.log_text()[log_before:])
        finally:
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main()
