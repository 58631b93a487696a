"""On the accelerated clock: 30 days of a drive written at
2x its rated DWPD, with a kill -9 restart in the middle, read back as DWPD
2.0 +- 1% over the 30-day window, the window still covering all 30 days (so
the history from before the crash was kept). The wall time it took is
printed, not asserted: it depends on the host.
"""
import os
import sys
import time
import unittest
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, has_series, sim, table, value  # noqa: E402

DAY = 86400.0
START = 1767225600.0  # 2026-01-01T00:00:00Z

# A poll must take a small part of the one-hour poll interval in clock time
# (36 ms of wall time here), or the samples thin out and the window's edges
# blur: a loaded host or a sanitized build makes a poll several times slower.
FACTOR = 100000
WAIT = 120

CONFIG = config(
    table("[clock]", mode="accelerated", factor=FACTOR, start=datetime.fromtimestamp(START, timezone.utc)),
    sim("w", "SIM-WEAR", "generic", capacity="1TB", rated_dwpd=1.0, warranty_years=5, write_dwpd=2.0),
    poll_interval="1h", command_timeout="2s")


def clock_time(m):
    return value(m, "nvmond_last_collection_timestamp_seconds", serial="SIM-WEAR")


class WearHistoryTest(unittest.TestCase):
    def test_thirty_days_at_twice_the_rating_survive_kill_9(self):
        wall0 = time.monotonic()
        d = Daemon(CONFIG).start()
        try:
            # The earliest sample this test can vouch for: the first one it
            # sees. Start-up time decides how far past START that is.
            first = clock_time(d.wait_metric(
                lambda m: has_series(m, "nvmond_last_collection_timestamp_seconds", serial="SIM-WEAR"),
                WAIT, "a first sample"))
            before_kill = clock_time(d.wait_metric(
                lambda m: has_series(m, "nvmond_last_collection_timestamp_seconds", serial="SIM-WEAR")
                and clock_time(m) >= START + 15 * DAY, WAIT, "15 simulated days"))
            d.kill9()
            d.start()
            m = d.wait_metric(lambda m: has_series(m, "nvmond_last_collection_timestamp_seconds", serial="SIM-WEAR")
                              and clock_time(m) >= START + 31 * DAY, WAIT, "31 simulated days")
        finally:
            d.stop()
        wall = time.monotonic() - wall0
        dwpd = value(m, "nvme_dwpd", serial="SIM-WEAR", window="30d")
        covered = value(m, "nvme_dwpd_window_covered_seconds", serial="SIM-WEAR", window="30d")
        print(f"30 d DWPD {dwpd:.4f}, window covers {covered / DAY:.2f} d, "
              f"lifetime DWPD {value(m, 'nvme_dwpd', serial='SIM-WEAR', window='lifetime'):.4f}, "
              f"rated {value(m, 'nvme_rated_dwpd', serial='SIM-WEAR')}, wall {wall:.1f} s")
        self.assertAlmostEqual(dwpd, 2.0, delta=0.02)
        # A lost history would still give a 2.0 rate, but over the days since
        # the restart only: the window must reach back across the crash.
        now = clock_time(m)
        self.assertLess(first, before_kill)
        self.assertGreater(covered, now - before_kill)
        # From the first sample seen (or 30 days back, if earlier), less a few
        # hours for where the samples fall.
        self.assertGreaterEqual(covered, min(30 * DAY, now - first) - 0.25 * DAY)
        self.assertEqual(value(m, "nvme_rated_dwpd", serial="SIM-WEAR"), 1.0)
        self.assertEqual(value(m, "nvme_write_rate_over_rating", serial="SIM-WEAR"), 1)


if __name__ == "__main__":
    unittest.main()
