"""A workload the daemon runs on a simulated drive heats that drive: on an
accelerated clock the datacenter profile under sequential writes crosses
70 C, the analytics see it throttling, and the job's throughput falls to the
drive's throttled rate, all on one /metrics endpoint."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, has_series, promtool_check_metrics, sim, table, value  # noqa: E402

CONFIG = config(
    table("[clock]", mode="accelerated", factor=20),
    sim("dc", "SIM-DC", "datacenter"),
    table("[[job]]", name="seqwrite", target="sim:SIM-DC", engine="sim", pattern="sequential", bs="8MiB",
          read_pct=0, queue_depth=4, runtime="30m"),
    poll_interval="10s")


class DaemonJobTest(unittest.TestCase):
    def test_sim_job_heats_the_drive_until_it_throttles(self):
        d = Daemon(CONFIG).start()
        try:
            def rate(m):
                return value(m, "nvmond_workload_throughput_bytes_per_second", workload="seqwrite", op="write")
            # Cool drive: the job writes at the drive's full sequential rate.
            m = d.wait_metric(lambda m: has_series(m, "nvmond_workload_throughput_bytes_per_second")
                              and rate(m) > 1000e6, 30, "the unthrottled rate (> 1 GB/s)")
            self.assertEqual(value(m, "nvmond_workload_running", workload="seqwrite"), 1)
            # The job's heat crosses 70 C and the analytics see the drive throttling...
            m = d.wait_metric(
                lambda m: get(m, "nvme_thermal_throttling", serial="SIM-DC") == 1, 60,
                "the job to make the drive throttle")
            # The drive's own thermal management throttled it (TMT1 counted),
            # and it stays throttled until it cools 2 C (its hysteresis) below
            # 70 C: on a slow host the simulated engine falls behind the
            # accelerated clock, the drive heats less and the scrape that
            # first reads the throttle can find it anywhere in that band.
            self.assertGreaterEqual(value(m, "nvme_thermal_throttle_events_total", serial="SIM-DC", source="tmt1"), 1)
            self.assertGreaterEqual(value(m, "nvme_temperature_celsius", serial="SIM-DC", sensor="composite"), 68)
            # Its throttle point, known both ways: the TMT1 it reports through
            # host controlled thermal management, and the composite at which
            # nvmond saw its throttling begin (the same 70 C, within the
            # readings' whole degrees and the hysteresis band above).
            self.assertEqual(value(m, "nvme_temperature_limit_celsius", serial="SIM-DC", limit="tmt1"), 70)
            self.assertEqual(value(m, "nvme_temperature_limit_celsius", serial="SIM-DC", limit="tmt2"), 75)
            self.assertTrue(67 <= value(m, "nvme_thermal_throttle_onset_celsius", serial="SIM-DC") <= 72,
                            value(m, "nvme_thermal_throttle_onset_celsius", serial="SIM-DC"))
            # ...and the job now runs at the throttled rate (800, then 650 MB/s).
            d.wait_metric(lambda m: 500e6 < rate(m) <= 820e6, 60, "the throttled rate")
        finally:
            self.assertEqual(d.stop(), 0)

    def test_scrape_of_a_running_workload_passes_promtool(self):
        # Latency quantiles are published from the runner's first interval on
        # (about a second in): poll until a scrape carries them, then lint
        # that very scrape.
        d = Daemon(CONFIG).start()
        try:
            quantile = re.compile(r'^nvmond_workload_\w+\{[^}]*workload="seqwrite"[^}]*quantile="', re.M)
            text = d.wait_scrape(quantile.search, 30, "latency quantiles of the running workload")
            self.assertIn('nvmond_workload_running{workload="seqwrite",serial="SIM-DC"} 1', text)
            r = promtool_check_metrics(text)
            self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""))
            self.assertIn("# TYPE nvmond_workload_interval_latency_seconds summary", text)
        finally:
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main()
