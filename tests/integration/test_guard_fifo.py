"""A [[job]] that reads a FIFO cannot hang the daemon: the safety guard opens
every target without blocking and refuses a FIFO for reading, so the job fails
at once (nvmond_workload_failed 1) and SIGTERM still stops the daemon within
2 s, also after a SIGHUP reload that restarts the job. Before the guard saw
read jobs, the job's open() blocked forever and stopping joined it."""
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, sim, table  # noqa: E402

CONFIG = config(
    sim("a", "SIM-A", "datacenter"),
    table("[[job]]", name="fifo", target="@FIFO@", read_pct=100, bs="4KiB", runtime="1h"),
    table("[safety]", allow_dirs=["@SCRATCH@"]),
    poll_interval="200ms")


class GuardFifoTest(unittest.TestCase):
    def daemon(self):
        d = Daemon("")
        scratch = os.path.join(d.dir, "scratch")
        os.mkdir(scratch)
        fifo = os.path.join(scratch, "fifo")
        os.mkfifo(fifo)
        d.write_config(CONFIG.replace("@FIFO@", fifo).replace("@SCRATCH@", scratch))
        return d.start()

    def assert_refused(self, d, start=0):
        d.wait_log(r"job fifo: .* is a FIFO; a read job on it could block forever .*\(would_block\)", 10, start)
        d.wait_metric(lambda m: get(m, "nvmond_workload_failed", workload="fifo") == 1, 10,
                      "nvmond_workload_failed 1 for the FIFO job")

    def assert_stops_within_2s(self, d):
        d.signal(signal.SIGTERM)
        t0 = time.monotonic()
        try:
            rc = d.proc.wait(2)
        except subprocess.TimeoutExpired:
            d.kill9()
            self.fail(f"nvmond ignored SIGTERM for 2 s:\n{d.log_text()}")
        self.assertEqual(rc, 0, d.log_text())
        print(f"stopped {time.monotonic() - t0:.3f} s after SIGTERM")

    def test_sigterm_stops_the_daemon_with_a_fifo_read_job(self):
        d = self.daemon()
        try:
            self.assert_refused(d)
            self.assert_stops_within_2s(d)
        finally:
            d.stop()

    def test_sigterm_stops_the_daemon_after_a_reload_with_it(self):
        d = self.daemon()
        try:
            self.assert_refused(d)
            mark = len(d.log_text())
            d.signal(signal.SIGHUP)
            d.wait_log(r"reloaded ", 10, mark)
            self.assert_refused(d, mark)
            self.assert_stops_within_2s(d)
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
