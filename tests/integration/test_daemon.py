"""Tier 2: the built nvmond on simulated drives, scraped over HTTP.

Covers the monitoring core: values on /metrics, promtool lint,
a hung drive that neither blocks scrapes nor the other drives, SIGHUP with a
broken config (old one keeps serving) and with a good one, SIGTERM exit 0.
"""
import signal
import statistics
import subprocess
import sys
import time
import unittest

sys.path.insert(0, __import__("os").path.dirname(__file__))
from nvmond_harness import Daemon, config, get, sim, value, wait_for  # noqa: E402

CONFIG = config(
    sim("a", "SIM-A", "datacenter", capacity="3.84TB", write_rate="200MB"),
    sim("b", "SIM-B", "consumer", capacity="2TB"),
    sim("stuck", "SIM-HANG", "generic", fault="hang", hang="10s"),
    poll_interval="200ms", command_timeout="1s")

DATA_UNIT = 512000


class DaemonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = Daemon(CONFIG).start()
        # Both healthy drives answered and the hung one timed out at least once.
        cls.d.wait_metric(
            lambda m: get(m, "nvme_up", serial="SIM-A") == 1 and get(m, "nvme_up", serial="SIM-B") == 1,
            20, "two drives up")
        cls.d.wait_log(r"sim:stuck: no answer within", 20)

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def test_identity_and_capacity(self):
        m = self.d.metrics()
        self.assertEqual(value(m, "nvme_device_info", serial="SIM-A", backend="sim", path="sim:a"), 1)
        self.assertEqual(value(m, "nvme_capacity_bytes", serial="SIM-A"), 3.84e12)
        self.assertEqual(value(m, "nvme_capacity_bytes", serial="SIM-B"), 2e12)
        t = value(m, "nvme_temperature_celsius", serial="SIM-B", sensor="composite")
        self.assertTrue(0 < t < 100, t)

    def test_written_bytes_follow_the_clock(self):
        # Between two polls, the datacenter drive's counter grows by its
        # background write rate times the clock time between the polls.
        def sample():
            m = self.d.metrics()
            return (value(m, "nvmond_last_collection_timestamp_seconds", serial="SIM-A"),
                    value(m, "nvme_data_written_bytes_total", serial="SIM-A"))
        t0, w0 = sample()
        t1, w1 = wait_for(lambda: (lambda s: s if s[0] >= t0 + 1.0 else None)(sample()), 10, "polls 1 s apart")
        expected = 200e6 * (t1 - t0)
        self.assertLessEqual(abs((w1 - w0) - expected), 2 * DATA_UNIT + expected * 0.01,
                             f"wrote {w1 - w0} in {t1 - t0}s, expected {expected}")
        self.assertEqual(w1 % DATA_UNIT, 0)

    def test_hung_drive_marks_only_itself_down_and_scrapes_stay_fast(self):
        m = self.d.metrics()
        # Never identified: reported under its path, by nvme_up and its info
        # series only; no series carries a made-up serial.
        self.assertEqual(value(m, "nvme_up", path="sim:stuck"), 0)
        self.assertEqual(sorted(s.name for s in m
                                if s.labels.get("path") == "sim:stuck" and s.labels.get("serial") != "SIM-HANG"),
                         ["nvme_device_info", "nvme_up"])
        self.assertEqual(value(m, "nvme_device_info", path="sim:stuck"), 1)
        self.assertEqual([s for s in m if "serial" in s.labels and (s.labels["serial"] == ""
                                                                    or s.labels["serial"].startswith("unknown"))], [])
        self.assertEqual(value(m, "nvme_up", serial="SIM-A"), 1)
        latencies = []
        for _ in range(20):
            t = time.monotonic()
            self.d.scrape()
            latencies.append(time.monotonic() - t)
        print(f"scrape latency with a drive hung for 10 s: median {statistics.median(latencies)*1e3:.1f} ms,"
              f" max {max(latencies)*1e3:.1f} ms")
        self.assertLess(statistics.median(latencies), 0.050)
        self.assertLess(max(latencies), 1.0)

    def test_promtool_lints_the_scrape(self):
        r = subprocess.run(["promtool", "check", "metrics"], input=self.d.scrape(), text=True,
                           capture_output=True)
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""))

    def test_metrics_reference_documents_every_exported_metric(self):
        import os
        import re
        from nvmond_harness import SOURCE_DIR
        readme = open(os.path.join(SOURCE_DIR, "docs", "metrics.md")).read()
        names = set(re.findall(r"^# TYPE (\S+) ", self.d.scrape(), re.M))
        self.assertGreater(len(names), 40)
        missing = sorted(n for n in names if f"`{n}`" not in readme)
        self.assertEqual(missing, [], "metrics exported but not in docs/metrics.md")

    def test_zz_reload_then_sigterm(self):
        d = self.d
        with open(d.config) as f:
            good = f.read()
        mark = len(d.log_text())
        # A broken config: rejected, the running one keeps serving.
        with open(d.config, "w") as f:
            f.write(good.replace('poll_interval = "200ms"', 'poll_interval = "-1s"'))
        d.signal(signal.SIGHUP)
        d.wait_log(r"reload rejected.*nvmond\.toml:\d+:\d+: collection\.poll_interval: -1s is out of range", 10, mark)
        m = d.metrics()
        self.assertEqual(value(m, "nvme_up", serial="SIM-A"), 1)
        self.assertFalse(d.exited())
        # A good config with one more drive: picked up.
        with open(d.config, "w") as f:
            f.write(good + "\n" + sim("c", "SIM-C", "generic"))
        d.signal(signal.SIGHUP)
        d.wait_metric(lambda m: get(m, "nvme_up", serial="SIM-C") == 1,
                      10, "the reloaded drive SIM-C")
        # SIGTERM: clean exit within 2 s even with a drive hung in a command.
        t = time.monotonic()
        d.signal(signal.SIGTERM)
        rc = d.proc.wait(5)
        elapsed = time.monotonic() - t
        print(f"SIGTERM to exit: {elapsed*1e3:.0f} ms")
        self.assertEqual(rc, 0, d.log_text())
        self.assertLess(elapsed, 2.0)


if __name__ == "__main__":
    unittest.main()
