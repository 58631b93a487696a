"""Tier 2: the series budget per drive that docs/metrics.md ("Series budget")
documents holds on a real scrape.

The daemon runs 8 simulated drives, among them a worst case: 8 temperature
sensors, the OCP logs (C0 at version 5, the C3 latency monitor, a C1
panic), writes hot enough to throttle (every throttle
source and level series appears), a failed self-test (its failed segment
series appears) and saved controller-initiated telemetry, on an accelerated clock so wear windows
and throttle events exist. The test waits until that drive's throttle and
wear series are there, then counts the series carrying each drive's serial
and the daemon-wide ones, and fails when any is above the documented budget.
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR, Daemon, config, find, has_series, sim, table, value  # noqa: E402

WORST = "BUDGET-WORST"
CONFIG = config(
    table("[clock]", mode="accelerated", factor=60),
    sim("worst", WORST, "datacenter", sensors=8, has_ocp=True, write_rate="1500MB",
        self_test_failure=True, telemetry_interval="1h", ocp_panic=True),
    *(sim(f"d{i}", f"BUDGET-{i}", p, write_rate=w)
      for i, (p, w) in enumerate([("datacenter", "200MB"), ("consumer", "150MB"), ("consumer-heatsink", "150MB"),
                                  ("generic", "50MB"), ("datacenter", "0"), ("consumer", "0"), ("generic", "0")])),
    poll_interval="100ms", command_timeout="2s")
SERIALS = [WORST] + [f"BUDGET-{i}" for i in range(7)]


def documented_budget():
    with open(os.path.join(SOURCE_DIR, "docs", "metrics.md")) as f:
        text = f.read()
    per_drive = re.search(r"at\s+most\s+\*\*(\d+) series per drive\*\*", text)
    daemon = re.search(r"at\s+most\s+\*\*(\d+) daemon-wide series\*\*", text)
    if not per_drive or not daemon:
        raise AssertionError("docs/metrics.md states no series budget (\"at most **N series per drive**\", "
                             "\"at most **N daemon-wide series**\")")
    return int(per_drive.group(1)), int(daemon.group(1))


class SeriesBudgetTest(unittest.TestCase):
    def test_series_per_drive_within_the_documented_budget(self):
        budget, daemon_budget = documented_budget()
        d = Daemon(CONFIG).start()
        try:
            # Every drive identified and analysed (wear needs two polls), and
            # the worst one throttling with its event's peak published.
            def complete(m):
                serials = {s.labels.get("serial") for s in find(m, "nvme_up")}
                # A drive not yet identified is up under its path alone (no serial).
                return (serials == set(SERIALS)
                        and all(has_series(m, "nvme_dwpd", serial=s, window="1d") for s in SERIALS)
                        and value(m, "nvme_thermal_throttling", serial=WORST) == 1
                        and has_series(m, "nvme_thermal_throttle_last_peak_celsius", serial=WORST)
                        and has_series(m, "nvme_ocp_physical_media_written_bytes_total", serial=WORST)
                        and has_series(m, "nvme_ocp_media_dies_offline", serial=WORST)
                        and has_series(m, "nvme_ocp_latency_monitor_commands_total", serial=WORST)
                        and has_series(m, "nvme_ocp_panic_info", serial=WORST)
                        and has_series(m, "nvme_self_test_failed_segment", serial=WORST)
                        and has_series(m, "nvmond_telemetry_captures_total", serial=WORST, result="saved")
                        and has_series(m, "nvme_temperature_celsius", serial=WORST, sensor="8"))
            m = d.wait_metric(complete, 60, "every drive analysed and the worst-case one throttling")
        finally:
            d.stop()
        per_serial, daemon_wide = {}, 0
        for sample in m:
            serial = sample.labels.get("serial")
            if serial is None:
                daemon_wide += 1
            else:
                per_serial[serial] = per_serial.get(serial, 0) + 1
        self.assertEqual(sorted(per_serial), sorted(SERIALS))
        print(f"series per drive: {dict(sorted(per_serial.items()))}; daemon-wide: {daemon_wide}; "
              f"budget {budget} per drive, {daemon_budget} daemon-wide")
        over = {s: n for s, n in per_serial.items() if n > budget}
        self.assertFalse(over, f"drives above the budget of {budget} series: {over}")
        self.assertLessEqual(daemon_wide, daemon_budget)
        # The worst case is the one the budget is sized for: it must be the largest.
        self.assertEqual(max(per_serial, key=per_serial.get), WORST)


if __name__ == "__main__":
    unittest.main()
