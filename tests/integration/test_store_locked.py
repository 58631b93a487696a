"""Another program holding the history database's write lock (an sqlite3
shell inside BEGIN EXCLUSIVE, a backup tool) stops no poll: every drive stays
up, the polls queue (nvmond_store_queued_writes) and land once the lock goes;
and SIGTERM with the lock still held ends the daemon within the unit's
TimeoutStopSec=10s, counting what it could not write.
"""
import os
import signal
import sqlite3
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, find, get, nvmonctl, sim, store_rows, table, wait_for  # noqa: E402

SERIALS = ["LK-A", "LK-B", "LK-C"]
CONFIG = config(*(sim(s.lower(), s, "generic", write_rate="100MB") for s in SERIALS),
                poll_interval="200ms", command_timeout="2s")
UNIT_STOP_TIMEOUT_S = 10  # systemd/nvmond.service.in TimeoutStopSec


def polls(m, serial):
    return get(m, "nvmond_collections_total", serial=serial)


def queued(m):
    series = find(m, "nvmond_store_queued_writes")
    return series[0].value if series else None


def sigterm_within_the_units_stop_timeout(test, d):
    """Sends SIGTERM; fails unless nvmond exits 0 before systemd would kill it. Returns the seconds it took."""
    began = time.monotonic()
    d.signal(signal.SIGTERM)
    try:
        rc = d.proc.wait(UNIT_STOP_TIMEOUT_S)
    except Exception:
        test.fail(f"nvmond still running {UNIT_STOP_TIMEOUT_S} s after SIGTERM:\n{d.log_text()}")
    test.assertEqual(rc, 0, d.log_text())
    return time.monotonic() - began


class WriteLock:
    """A second connection inside BEGIN EXCLUSIVE on the daemon's database."""

    def __init__(self, db):
        self.conn = sqlite3.connect(db, isolation_level=None, timeout=10)
        self.conn.execute("BEGIN EXCLUSIVE")

    def release(self):
        if self.conn:
            self.conn.execute("ROLLBACK")
            self.conn.close()
            self.conn = None


class StoreLocked(unittest.TestCase):
    def start(self):
        d = Daemon(CONFIG).start()
        self.addCleanup(d.stop)
        db = os.path.join(d.dir, "state", "nvmond.db")
        d.wait_metric(lambda m: all(get(m, "nvme_up", serial=s) == 1 for s in SERIALS), 20, "every drive up")
        wait_for(lambda: os.path.exists(db) and store_rows(db, "SELECT count(*) FROM samples")[0][0] > 0, 20,
                 "history on disk")
        return d, db

    def test_drives_stay_up_while_another_program_holds_the_write_lock_and_their_polls_land_after(self):
        d, db = self.start()
        lock = WriteLock(db)
        self.addCleanup(lock.release)
        start = d.metrics()
        # 5 s of polls at 200 ms: more than twice the writer's 5 s busy timeout per poll.
        m = d.wait_metric(lambda m: all(polls(m, s) >= polls(start, s) + 25 for s in SERIALS) or
                          any(get(m, "nvme_up", serial=s) != 1 for s in SERIALS), 30, "25 more polls of each drive")
        for s in SERIALS:
            self.assertEqual(get(m, "nvme_up", serial=s), 1, f"{s} went down while the store was locked")
        self.assertGreater(queued(m) or 0, 0, "the locked polls wait in the writer's queue")
        self.assertEqual(get(m, "nvmond_store_dropped_writes_total"), 0)

        before = store_rows(db, "SELECT count(*) FROM samples")[0][0]
        lock.release()
        wait_for(lambda: store_rows(db, "SELECT count(*) FROM samples")[0][0] >= before + 25 * len(SERIALS), 30,
                 "the polls queued behind the lock on disk")

    def test_sigterm_with_the_write_lock_held_ends_within_the_units_stop_timeout(self):
        d, db = self.start()
        lock = WriteLock(db)
        self.addCleanup(lock.release)
        start = d.metrics()
        # Polls have met the lock: they went on (history queued) or, writing it
        # themselves, went down stuck in it.
        d.wait_metric(lambda m: all(polls(m, s) >= polls(start, s) + 3 for s in SERIALS) or
                      any(get(m, "nvme_up", serial=s) != 1 for s in SERIALS), 20, "polls to meet the lock")
        took = sigterm_within_the_units_stop_timeout(self, d)
        self.assertRegex(d.log_text(), r"queued poll\(s\) not written within \d+ ms of stopping; dropped")
        self.assertIn("stopped", d.log_text())
        print(f"stopped {took:.1f} s after SIGTERM with the database locked")


SOAK_DRIVES = [f"sk{i}" for i in range(9)]
SOAK_CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    # Simulated soaks keep pace with the clock: one-minute rounds, 10 a second.
    table("[clock]", mode="accelerated", factor=600),
    *(sim(n, n.upper(), "datacenter") for n in SOAK_DRIVES),
    *(table("[[soak]]", name=f"{n}-wsat", test="wsat", target=f"sim:{n}", params={"rounds": 1000000, "round": "1m"})
      for n in SOAK_DRIVES[:8]),
    poll_interval="1s")


class SoaksWithTheHistoryLocked(unittest.TestCase):
    """Eight soaks write their rounds while another program holds the
    history's write lock: an operator's start is answered with a run, and
    SIGTERM still ends the daemon within the unit's stop timeout."""

    def test_start_is_answered_and_sigterm_ends_in_time_with_eight_soaks_running(self):
        work = tempfile.mkdtemp(prefix="nvmond-locked-soaks-")
        sock = os.path.join(work, "control.sock")
        d = Daemon(SOAK_CONFIG.replace("@SOCKET@", sock), workdir=work).start()
        self.addCleanup(d.stop)
        db = os.path.join(d.dir, "state", "nvmond.db")
        wait_for(lambda: os.path.exists(sock), 20, "the control socket")

        def rounds(m):
            return [get(m, "nvmond_soak_round", serial=n.upper()) or 0 for n in SOAK_DRIVES[:8]]
        d.wait_metric(lambda m: all(r >= 2 for r in rounds(m)), 60, "every soak past its second round")
        wait_for(lambda: os.path.exists(db) and store_rows(db, "SELECT count(*) FROM samples")[0][0] > 0, 20,
                 "history on disk")
        lock = WriteLock(db)
        self.addCleanup(lock.release)
        start = d.metrics()
        d.wait_metric(lambda m: polls(m, "SK0") >= polls(start, "SK0") + 2 or get(m, "nvme_up", serial="SK0") != 1,
                      20, "polls to meet the lock")

        started = nvmonctl("--socket", sock, "--json", "start", "wsat", "--target", "sim:sk8", "--set", "rounds=100")
        self.assertEqual(started.returncode, 0, started.stdout + started.stderr)
        self.assertIn('"run"', started.stdout)
        after = d.metrics()
        self.assertTrue(all(r >= 2 for r in rounds(after)), "the soaks went on")

        took = sigterm_within_the_units_stop_timeout(self, d)
        print(f"stopped {took:.1f} s after SIGTERM with 9 soaks and the history locked")


if __name__ == "__main__":
    unittest.main()
