"""The event loop never waits on a database or a device: while another
program holds runs.db's write lock and `nvmonctl start` is issued, and while
three `nvmonctl selftest abort` wait on a drive that takes 1.5 s a command,
the healthy drive is polled at least once a second and a ping on the control
socket is answered within a second. The start still tells the operator its
run id once the lock goes, and every abort gets its answer."""
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMONCTL, SLACK, Daemon, config, get, sim, table, wait_for  # noqa: E402
from test_control_socket import raw_request  # noqa: E402

STALL_S = 3.0        # how long each test watches the stall (runs.db's busy timeout is 5 s)
# Under the sanitizers on a loaded 2-core host everything runs several times
# slower: the bounds double there, still well under the multi-second stalls
# a loop that waits on the drive or runs.db shows.
_SLACK = SLACK
MAX_ANSWER_S = 1.0 * _SLACK   # a control request's answer time during it
POLL_EVERY_S = 1.0 * _SLACK   # the healthy drive: at least one poll per this


def ping(path):
    """Seconds a ping on the control socket took to be answered."""
    began = time.monotonic()
    reply = raw_request(path, b'{"cmd":"ping"}\n')
    assert reply["ok"], reply
    return time.monotonic() - began


class Watch:
    """For `seconds`, scrapes the healthy drive's poll counter (on a thread of
    its own, so a ping the daemon holds does not hold the scrapes) and pings
    the control socket; then says the longest time the counter stood still
    and the slowest ping."""

    def __init__(self, d, sock, serial):
        self.d, self.sock, self.serial = d, sock, serial

    def run(self, seconds):
        polls, pings = [], []
        end = time.monotonic() + seconds

        def scrape():
            while time.monotonic() < end:
                m = self.d.metrics()
                polls.append((time.monotonic(), get(m, "nvmond_collections_total", serial=self.serial)))
                time.sleep(0.05)  # pacing of the probes, not synchronisation

        scraper = threading.Thread(target=scrape)
        scraper.start()
        while time.monotonic() < end:
            pings.append(ping(self.sock))
            time.sleep(0.05)  # pacing of the probes, not synchronisation
        scraper.join()
        still, since = 0.0, polls[0]
        for t, n in polls[1:]:
            if n != since[1]:
                since = (t, n)
            still = max(still, t - since[0])
        return still, max(pings), len(pings)


class LoopNeverWaits(unittest.TestCase):
    def daemon(self, *tables, **collection):
        workdir = tempfile.mkdtemp(prefix="nvmond-loop-")
        sock = os.path.join(workdir, "control.sock")
        d = Daemon(config(table("[control]", socket=sock), *tables, **collection), workdir=workdir).start()
        self.addCleanup(d.stop)
        wait_for(lambda: os.path.exists(sock), 10, "the control socket")
        return d, sock

    def ctl(self, sock, *args):
        return subprocess.Popen([NVMONCTL, "--socket", sock, *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def assert_loop_free(self, still, slowest, pings, what):
        print(f"{what}: healthy drive unpolled for at most {still:.2f} s; slowest of {pings} pings {slowest:.3f} s")
        self.assertLessEqual(still, POLL_EVERY_S + 0.25, f"the healthy drive went unpolled {still:.1f} s {what}")
        self.assertLess(slowest, MAX_ANSWER_S, f"a ping took {slowest:.2f} s {what}")

    def test_a_start_while_another_program_holds_runs_db_locked_waits_for_nothing(self):
        d, sock = self.daemon(sim("x", "LN-X", "generic"), sim("ok", "LN-OK", "generic"),
                              poll_interval="250ms")
        runs_db = os.path.join(d.dir, "state", "runs.db")
        d.wait_metric(lambda m: get(m, "nvme_up", serial="LN-OK") == 1, 20, "the healthy drive up")
        wait_for(lambda: os.path.exists(runs_db), 20, "runs.db")
        lock = sqlite3.connect(runs_db, isolation_level=None, timeout=10)
        self.addCleanup(lock.close)
        lock.execute("BEGIN IMMEDIATE")
        began = time.monotonic()
        start = self.ctl(sock, "start", "wsat", "--target", "sim:x", "--set", "rounds=2")
        still, slowest, pings = Watch(d, sock, "LN-OK").run(STALL_S)
        lock.execute("ROLLBACK")
        out, err = start.communicate(timeout=60)
        print(f"nvmonctl start: {time.monotonic() - began:.1f} s: {out.strip()} {err.strip()}")
        self.assert_loop_free(still, slowest, pings, "while runs.db was locked")
        self.assertEqual(start.returncode, 0, err)
        self.assertRegex(out, r"started run \d+ \(manual-")

    def test_three_aborts_on_a_drive_that_takes_seconds_a_command_wait_for_nothing(self):
        d, sock = self.daemon(sim("slow", "LN-SLOW", "generic", fault="hang", hang="1500ms"),
                              sim("ok", "LN-OK", "generic"),
                              poll_interval="250ms", command_timeout="30s")
        d.wait_metric(lambda m: get(m, "nvme_up", serial="LN-SLOW") == 1 and get(m, "nvme_up", serial="LN-OK") == 1,
                      40, "both drives up (the slow one answers each command after 1.5 s)")
        aborts = [self.ctl(sock, "selftest", "abort", "LN-SLOW") for _ in range(3)]
        still, slowest, pings = Watch(d, sock, "LN-OK").run(STALL_S)
        answers = [a.communicate(timeout=45) for a in aborts]
        for a, (out, err) in zip(aborts, answers):
            print(f"nvmonctl selftest abort: rc {a.returncode}: {out.strip()} {err.strip()}")
            self.assertIn(a.returncode, (0, 1), err)
            self.assertTrue((out + err).strip(), "an abort got no answer")
        self.assert_loop_free(still, slowest, pings, "while three aborts waited on the slow drive")
        self.assertTrue(any(a.returncode == 0 for a in aborts), "no abort reached the drive")


if __name__ == "__main__":
    unittest.main()
