"""On the accelerated clock: a thermal excursion recorded
only in the simulated drive's Persistent Event log while nvmond is stopped
shows up, after a restart, in the throttle history with source
drive_event_log, marked as happened while nvmond was not running; a second
restart counts no event twice.

The stop is made real in drive time by starting the second run's clock
hours after the first run's last sample: the drive lives through that gap
(its model integrates it on the first command), and its `thermal_excursion_at`
places the excursion inside it.
"""
import os
import re
import sys
import unittest
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, has_series, sim, store_rows, table, value, wait_for  # noqa: E402

START = 1767225600.0  # 2026-01-01T00:00:00Z
SERIAL = "SIM-PEL"
HOUR = 3600


def run_config(clock_start, **drive):
    return config(
        table("[clock]", mode="accelerated", factor=600,
              start=datetime.fromtimestamp(clock_start, timezone.utc)),
        sim("pel", SERIAL, "generic", **drive),
        poll_interval="1m", command_timeout="2s")


def events(m, kind):
    return value(m, "nvme_event_log_events_total", serial=SERIAL, type=kind)


def polls(m):
    return value(m, "nvmond_collections_total", serial=SERIAL)


class EventLogTest(unittest.TestCase):
    def test_an_excursion_while_stopped_joins_the_throttle_history_once(self):
        d = Daemon(run_config(START))
        db = os.path.join(d.dir, "state", "nvmond.db")
        try:
            d.start()
            d.wait_metric(lambda m: has_series(m, "nvme_event_log_events_total", serial=SERIAL, type="power_on_reset")
                          and events(m, "power_on_reset") == 1, 20, "the drive's power-on event counted")
            d.stop()
            last_ns = store_rows(db, "SELECT MAX(time_ns) FROM samples")[0][0]
            last = last_ns // 10**9
            hot = last + 3 * HOUR
            # Three hours after the last poll, with nvmond down, the drive overheats.
            d.write_config(run_config(last + 6 * HOUR,
                                      thermal_excursion_at=datetime.fromtimestamp(hot, timezone.utc)))
            log_from = len(d.log_text())
            d.start()
            m = d.wait_metric(lambda m: has_series(m, "nvme_event_log_events_total", serial=SERIAL,
                                                   type="thermal_excursion")
                              and events(m, "thermal_excursion") == 1, 20, "the excursion counted")
            self.assertEqual(events(m, "power_on_reset"), 1)
            d.wait_log(r"persistent event at .*: thermal excursion: 5 °C over the \d+ °C threshold "
                       r"\(while nvmond was not running\)", 10, log_from)

            # The history is written in batches: wait for the one that holds it.
            from_log = wait_for(lambda: [r for r in store_rows(db, "SELECT start_ns, end_ns, sources, level "
                                                                   "FROM thermal_events")
                                         if "drive_event_log" in r[2].split(",")],
                                10, "the excursion in the throttle history")
            self.assertEqual(len(from_log), 1, from_log)
            start_ns, end_ns, sources, level = from_log[0]
            self.assertEqual(start_ns, hot * 10**9)
            self.assertEqual(end_ns, start_ns)
            self.assertEqual(sources.split(","), ["drive_event_log", "nvmond_not_running"])
            self.assertEqual(level, 1)
            d.stop()

            # A restart reads the same log again and counts nothing twice.
            log_from = len(d.log_text())
            d.start()
            m = d.wait_metric(lambda m: has_series(m, "nvme_event_log_events_total", serial=SERIAL,
                                                   type="thermal_excursion") and polls(m) >= 3,
                              20, "three polls after the second restart")
            self.assertEqual(events(m, "thermal_excursion"), 1)
            self.assertEqual(events(m, "power_on_reset"), 1)
            self.assertEqual(sum(1 for r in store_rows(db, "SELECT sources FROM thermal_events")
                                 if "drive_event_log" in r[0].split(",")), 1)
            self.assertIsNone(re.search(r"persistent event at", d.log_text()[log_from:]))
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
