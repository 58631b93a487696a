"""A run on an accelerated clock dated in the future, then a start on the
system clock: the clock now reads before the newest stored sample of every
drive. Such polls are not stored (counted as clock_behind, logged once per
drive), every series still names its drive (no serial=""), and no wear or
thermal counter goes backwards.
"""
import os
import re
import sys
import unittest
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, by_series, config, has_series, sim, table, value  # noqa: E402

DAY = 86400.0
FUTURE = 1956528000.0  # 2032-01-01T00:00:00Z
SERIALS = ["CB-DC", "CB-CONS", "CB-GEN"]

DRIVES = (sim("dc", "CB-DC", "datacenter", write_dwpd=1.5),
          sim("cons", "CB-CONS", "consumer", write_rate="150MB"),
          sim("gen", "CB-GEN", "generic", write_dwpd=0.5))

ACCELERATED = config(
    table("[clock]", mode="accelerated", factor=200000, start=datetime.fromtimestamp(FUTURE, timezone.utc)),
    *DRIVES, poll_interval="1h", command_timeout="2s")

SYSTEM = config(*DRIVES, poll_interval="200ms", command_timeout="2s")

# Counters whose exported value must never decrease across the restart.
WEAR = re.compile(r"^nvme_(data_written_bytes|data_read_bytes|power_on_seconds|host_write_commands|"
                  r"thermal_throttle_\w+|thermal_management_\w+)_total$|^nvme_percentage_used_ratio$")


def collected(m, serial, at_least):
    return has_series(m, "nvmond_collections_total", serial=serial) and \
        value(m, "nvmond_collections_total", serial=serial) >= at_least


class ClockStepBackTest(unittest.TestCase):
    def test_future_history_then_system_clock(self):
        d = Daemon(ACCELERATED).start()
        try:
            before = d.wait_metric(
                lambda m: all(has_series(m, "nvmond_last_collection_timestamp_seconds", serial=s)
                              and value(m, "nvmond_last_collection_timestamp_seconds", serial=s) >= FUTURE + 3 * DAY
                              for s in SERIALS), 30, "three future days of history")
        finally:
            self.assertEqual(d.stop(), 0)

        d.write_config(SYSTEM)
        mark = len(d.log_text())
        d.start()
        try:
            after = d.wait_metric(lambda m: all(collected(m, s, 5) for s in SERIALS), 30, "five polls per drive")
        finally:
            d.stop()

        empty = sorted({s.name for s in after if s.labels.get("serial") == ""
                        or "serial" not in s.labels and s.name.startswith("nvme_")})
        self.assertEqual(empty, [], "series without a drive's serial")
        went_back = []
        old, new = by_series(before), by_series(after)
        for key, v in old.items():
            if WEAR.match(key[0]) and key in new and new[key] < v:
                went_back.append((key[0], dict(key[1]), v, new[key]))
        self.assertEqual(went_back, [], "counters that went backwards")
        compared = [k for k in old if WEAR.match(k[0]) and k in new]
        self.assertGreater(len(compared), 10 * len(SERIALS), "too few counters compared")
        for s in SERIALS:
            self.assertGreaterEqual(value(after, "nvmond_history_skipped_samples_total", serial=s,
                                          reason="clock_behind"), 4)
            # The view stays at the newest stored sample, so history-derived
            # series are still exported under the drive's serial.
            self.assertTrue(has_series(after, "nvme_dwpd", serial=s, window="1d"), s)
        log = d.log_text()[mark:]
        for s in SERIALS:
            self.assertEqual(len(re.findall(rf"drive {s} .*before the newest stored sample", log)), 1, log)


if __name__ == "__main__":
    unittest.main()
