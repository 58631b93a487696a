"""A [[soak]] that cannot start says so where an operator looks: one log line
naming the soak and the reason, and a counter a rule can alert on; the
scheduler tries it again instead of leaving it idle until a restart."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, promtool_check_metrics, sim, table  # noqa: E402

CONFIG = config(
    # Accelerated, so the 30 s retry comes within a second of the test's time.
    table("[clock]", mode="accelerated", factor=120),
    sim("dc0", "SIM-DC0", "datacenter"),
    # A character device: the safety guard refuses it whoever asks.
    table("[[soak]]", name="refused", test="wsat", target="/dev/null", params={"rounds": 2}),
    table("[[soak]]", name="fine", test="wsat", target="sim:dc0", params={"rounds": 1, "round": "1m"}),
    poll_interval="1s")


def failures(samples, soak):
    """nvmond_soak_start_failures_total of one soak (its label is `name`, which get() takes itself)."""
    found = [s.value for s in samples if s.name == "nvmond_soak_start_failures_total" and s.labels.get("name") == soak]
    return found[0] if found else None


class RefusedSoak(unittest.TestCase):
    def test_a_refused_target_is_logged_once_counted_and_retried(self):
        with tempfile.TemporaryDirectory(prefix="nvmond-refused-") as work:
            d = Daemon(CONFIG, workdir=work).start()
            try:
                d.wait_log(r"soak refused: cannot start: .*/dev/null", 20)
                retried = d.wait_metric(
                    lambda m: (failures(m, "refused") or 0) >= 2, 30,
                    "a second failed start (the retry)")
                self.assertEqual(failures(retried, "fine"), 0)
                promtool_check_metrics(d.scrape())
                # The same reason again is not a new line: once per change of reason.
                self.assertEqual(d.log_text().count("soak refused: cannot start"), 1, d.log_text())
            finally:
                d.stop()


if __name__ == "__main__":
    unittest.main()
