"""Tier 2: the OCP latency monitor (C3) and error recovery log (C1) of a
simulated OCP drive reach /metrics, a panic is logged once, and a drive
without the OCP logs has none of their series.

The job's 8 MiB writes at queue depth 4 wait for each other in the
simulated drive (about 16 ms each): its latency monitor counts them in the
bucket from 10 ms, the one the drive's thresholds put them in.
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, find, sim, wait_for  # noqa: E402

JOB = """[[job]]
name = "w"
target = "sim:OCP-DC"
engine = "sim"
pattern = "sequential"
bs = "8MiB"
read_pct = 0
queue_depth = 4
runtime = "1h"
"""


class OcpLogsTest(unittest.TestCase):
    def test_latency_buckets_count_the_jobs_writes_and_a_panic_is_logged_once(self):
        d = Daemon(config(sim("dc0", "OCP-DC", "datacenter", has_ocp=True, ocp_panic=True),
                          sim("plain", "PLAIN", "generic"), JOB, poll_interval="200ms")).start()
        try:
            def counted(m):
                return sum(s.value for s in find(m, "nvme_ocp_latency_monitor_commands_total")
                           if s.labels.get("serial") == "OCP-DC" and s.labels.get("op") == "write") >= 10
            m = d.wait_metric(counted, 60, "slow writes counted by the drive")
            polls = lambda: sum(s.value for s in find(d.metrics(), "nvmond_collections_total")
                                if s.labels.get("serial") == "OCP-DC")
            start = polls()
            wait_for(lambda: polls() >= start + 5, 30, "five more polls")
            log = d.log_text()
        finally:
            d.stop()
        mine = [s for s in find(m, "nvme_ocp_latency_monitor_commands_total") if s.labels["serial"] == "OCP-DC"]
        self.assertEqual(len(mine), 12)
        by_bucket = {s.labels["bucket"]: s.value for s in mine if s.labels["op"] == "write"}
        # About 16 ms each: at or above threshold B (10 ms).
        self.assertGreater(by_bucket["1"] + by_bucket["2"] + by_bucket["3"], 0, by_bucket)
        self.assertEqual(sum(s.value for s in mine if s.labels["op"] != "write"), 0)
        (info,) = [s for s in find(m, "nvme_ocp_panic_info") if s.labels["serial"] == "OCP-DC"]
        self.assertEqual((info.labels["panic_id"], info.labels["reset_action"], info.labels["recovery_action"]),
                         ("0x5e1f0a17", "controller_reset", "vendor_analysis"))
        lines = re.findall(r"drive OCP-DC at sim:dc0: OCP error recovery log: panic 0x5e1f0a17 .*", log)
        self.assertEqual(len(lines), 1, lines)
        self.assertFalse([s.name for s in m if s.labels.get("serial") == "PLAIN" and s.name.startswith("nvme_ocp_")])


if __name__ == "__main__":
    unittest.main()
