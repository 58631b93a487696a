"""Throttling seen in the data: the simulated consumer drive counts no
thermal-management transitions (tmt_counters = false), yet a fixed sequential
[[job]] on it slows from 630 to 450 MB/s when it reaches 83 C; the daemon
infers the throttling from the job's throughput and exports it as
source="performance". The same job on the heatsink drive never throttles and
shows none. The scrape passes promtool."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import (Daemon, config, get, has_series, parse, promtool_check_metrics, sim, table,  # noqa: E402
                            value)

# factor 10: a job's interval (about a second of real time) is 10 s of the
# drive's; its throttled spells last about 30 s. Three intervals of baseline
# keep the SLC-cache seconds out of it by the time the drive nears 83 C.
CONFIG = config(
    table("[clock]", mode="accelerated", factor=10),
    table("[thermal.performance]", drop_share=0.2, baseline_intervals=3),
    sim("bare", "SIM-C", "consumer", tmt_counters=False),
    sim("cooled", "SIM-H", "consumer-heatsink", tmt_counters=False),
    *(table("[[job]]", name=name, target=f"sim:{serial}", engine="sim", pattern="sequential", bs="1MiB",
            read_pct=0, queue_depth=4, runtime="1h")
      for name, serial in (("seq-bare", "SIM-C"), ("seq-cooled", "SIM-H"))),
    poll_interval="5s")

class PerformanceThrottleTest(unittest.TestCase):
    def test_consumer_drive_without_tmt_counters_throttles_by_its_throughput(self):
        d = Daemon(CONFIG).start()
        try:
            # About 110 s of drive time (11 s real) to reach 83 C, then an
            # interval or two to see the drop.
            text = d.wait_scrape(lambda t: (get(parse(t), "nvme_thermal_throttle_events_total",
                                                serial="SIM-C", source="performance") or 0) >= 1,
                                 90, 'source="performance" on the consumer drive')
            r = promtool_check_metrics(text)
            self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""))

            m = d.metrics()
            # The drive counted nothing itself.
            self.assertEqual(value(m, "nvme_thermal_management_transitions_total", serial="SIM-C", level="1"), 0)
            self.assertEqual(value(m, "nvme_thermal_throttle_events_total", serial="SIM-C", source="tmt1"), 0)
            # The slow intervals are its seconds...
            self.assertGreater(value(m, "nvme_thermal_throttle_seconds_total", serial="SIM-C", source="performance"), 0)
            # ...and the inferred event is one of the merged ones, not an extra one:
            # each 83 C excursion is seen by the composite over WCTEMP and by
            # the throughput, late as its samples come, and counts once.
            merged = value(m, "nvme_thermal_throttle_merged_events_total", serial="SIM-C")
            perf = value(m, "nvme_thermal_throttle_events_total", serial="SIM-C", source="performance")
            sensor = value(m, "nvme_thermal_throttle_events_total", serial="SIM-C", source="sensor_threshold")
            self.assertGreaterEqual(merged, perf)
            if sensor >= 1:
                self.assertLess(merged, perf + sensor, "overlapping sources counted twice")
            # The heatsink drive ran the same job all along: no inferred event.
            self.assertTrue(has_series(m, "nvme_thermal_throttle_events_total", serial="SIM-H", source="performance"))
            self.assertEqual(value(m, "nvme_thermal_throttle_events_total", serial="SIM-H", source="performance"), 0)
            self.assertEqual(value(m, "nvme_thermal_throttle_seconds_total", serial="SIM-H", source="performance"), 0)
            self.assertEqual(value(m, "nvmond_workload_running", workload="seq-cooled"), 1)
        finally:
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main()
