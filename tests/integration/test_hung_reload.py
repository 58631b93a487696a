"""No thread outlives its reason: a drive hung in a command keeps one stuck
thread, however many reloads re-create its poller (threads after 50 reloads
equal threads after 1)."""
import os
import re
import signal
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, sim, value, wait_for  # noqa: E402

CONFIG = config(
    sim("ok", "HR-OK", "generic"),
    sim("stuck", "HR-HANG", "generic", fault="hang", hang="1h"),
    poll_interval="200ms", command_timeout="500ms")


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


class HungReloadTest(unittest.TestCase):
    def reload(self, d, n):
        d.signal(signal.SIGHUP)
        wait_for(lambda: d.log_text().count("reloaded ") >= n, 20, f"reload {n}")
        # The re-created pollers have run: the healthy drive answered again.
        d.wait_metric(lambda m: get(m, "nvme_up", serial="HR-OK") == 1,
                      10, "the healthy drive up after the reload")

    def test_fifty_reloads_leave_no_more_threads_than_one(self):
        d = Daemon(CONFIG).start()
        try:
            d.wait_log(r"sim:stuck: no answer within", 10)
            self.reload(d, 1)
            after_one = threads(d.proc.pid)
            for n in range(2, 51):
                self.reload(d, n)
            after_fifty = threads(d.proc.pid)
            print(f"threads after 1 reload: {after_one}, after 50: {after_fifty}")
            self.assertEqual(after_fifty, after_one)
            m = d.metrics()
            self.assertEqual(value(m, "nvme_up", path="sim:stuck"), 0)
            self.assertEqual(len(re.findall(r"reloaded ", d.log_text())), 50)
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
