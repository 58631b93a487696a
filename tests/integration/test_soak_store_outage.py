"""A soak survives what the run store survives: another program holds
runs.db's write lock (python's sqlite3 inside BEGIN IMMEDIATE) for 9 s while a
[[soak]] of one-second rounds runs. The soak shows as paused, with the reason
(nvmond_soak_paused{reason="locked"}, `nvmonctl status`), goes on once the
lock goes and completes with every round recorded exactly once; nothing in
the log says it failed. Meanwhile the other drive is polled at least once a
second and the control socket answers each request within a second."""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SANITIZED, Daemon, config, get, nvmonctl, sim, store_rows, table, wait_for  # noqa: E402

ROUNDS = 16
LOCK_S = 9
CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    sim("dc0", "OUT-DC0", "datacenter"),
    sim("ok0", "OUT-OK0", "generic"),
    table("[[soak]]", name="dc0-wsat", test="wsat", target="sim:dc0", params={"rounds": ROUNDS, "round": "1s"}),
    poll_interval="200ms")


def rounds(db):
    try:
        return store_rows(db, "SELECT COUNT(*), COUNT(DISTINCT idx), MIN(idx), MAX(idx) FROM pts_rounds")[0]
    except sqlite3.Error:
        return (0, 0, None, None)


class SoakThroughARunStoreLock(unittest.TestCase):
    def test_a_soak_pauses_while_runs_db_is_locked_and_completes_with_every_round_once(self):
        work = tempfile.mkdtemp(prefix="nvmond-soak-outage-")
        sock = os.path.join(work, "control.sock")
        d = Daemon(CONFIG.replace("@SOCKET@", sock), workdir=work).start()
        self.addCleanup(d.stop)
        db = os.path.join(d.dir, "state", "runs.db")
        wait_for(lambda: rounds(db)[0] >= 2, 30, "two rounds recorded")

        lock = sqlite3.connect(db, isolation_level=None, timeout=10)
        self.addCleanup(lock.close)
        lock.execute("BEGIN IMMEDIATE")
        locked_at = time.monotonic()
        first = d.metrics()
        polls_before = get(first, "nvmond_collections_total", serial="OUT-OK0")
        slowest, paused_metric, paused_status = 0.0, False, ""
        # The lock's own length: every request answered and every scrape
        # taken meanwhile is a measurement of the stall.
        while time.monotonic() < locked_at + LOCK_S:
            began = time.monotonic()
            st = nvmonctl("--socket", sock, "status", timeout=10)
            slowest = max(slowest, time.monotonic() - began)
            self.assertEqual(st.returncode, 0, st.stdout + st.stderr)
            if "paused: run 1 (dc0-wsat)" in st.stdout:
                paused_status = st.stdout
            m = d.metrics()
            paused_metric |= get(m, "nvmond_soak_paused", serial="OUT-DC0", run="1", reason="locked") == 1
        last = d.metrics()
        polls = get(last, "nvmond_collections_total", serial="OUT-OK0") - polls_before
        elapsed = time.monotonic() - locked_at
        lock.execute("ROLLBACK")
        lock.close()

        print(f"during the {elapsed:.1f} s lock: {polls:.0f} polls of the other drive, slowest status "
              f"{slowest * 1000:.0f} ms", file=sys.stderr)
        self.assertTrue(paused_metric, "nvmond_soak_paused{reason=\"locked\"} while the lock was held")
        self.assertIn("the run store cannot record round", paused_status)
        self.assertGreaterEqual(polls, int(elapsed), "the other drive polled at least once a second")
        # Answer times mean nothing under the sanitizers (several times slower
        # on a loaded 2-core host); the plain build carries the bound.
        if not SANITIZED:
            self.assertLess(slowest, 1.0, "a control request answered within a second")

        wait_for(lambda: store_rows(db, "SELECT status FROM pts_runs") == [("completed",)], 60,
                 "the soak to complete")
        self.assertEqual(rounds(db), (ROUNDS, ROUNDS, 0, ROUNDS - 1))
        log = d.log_text()
        self.assertRegex(log, r"soak dc0-wsat: run 1 paused: the run store cannot record round \d+: ")
        self.assertRegex(log, r"soak dc0-wsat: run 1: the run store records again; the run goes on")
        self.assertNotRegex(log, r"soak dc0-wsat: failed")
        self.assertEqual(os.listdir(os.path.join(d.dir, "state", "runs")), ["dc0-wsat-1"])


if __name__ == "__main__":
    unittest.main()
