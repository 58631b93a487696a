"""Monitoring survives the history store: a daemon started on a corrupt
database, a read-only state directory or a full filesystem still polls and
exports every drive, counts the failure in nvmond_store_errors_total, and
writes history again once the cause is gone. Two daemons never share one
state directory.

The read-only and full cases mount a small tmpfs (root is needed: chmod does
not stop root); they are skipped, saying so, where mounting is impossible.
"""
import contextlib
import glob
import os
import sqlite3
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, find, get, sim, store_rows, value, wait_for  # noqa: E402

SERIALS = ["RS-A", "RS-B", "RS-C"]

CONFIG = config(*(sim(s.lower(), s, "generic", write_rate="100MB") for s in SERIALS),
                poll_interval="200ms", command_timeout="2s")


def all_up(m):
    return all(get(m, "nvme_up", serial=s) == 1 for s in SERIALS)


def store_errors(m, reason):
    return sum(s.value for s in find(m, "nvmond_store_errors_total", reason=reason))


def sample_rows(state):
    db = os.path.join(state, "nvmond.db")
    if not os.path.exists(db):
        return 0
    try:
        return store_rows(db, "SELECT count(*) FROM samples")[0][0]
    except sqlite3.Error:
        return 0


def fill(filler):
    """Writes `filler` until its filesystem is full."""
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass  # ENOSPC: the filesystem is full
    finally:
        os.close(fd)


@contextlib.contextmanager
def state_on_tmpfs(test, d, options):
    """Mounts a tmpfs on the daemon's state directory for the block; stops
    the daemon and unmounts after it. Skips the test if mounting is impossible."""
    state = os.path.join(d.dir, "state")
    os.makedirs(state, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", state], capture_output=True, text=True)
    if r.returncode != 0:
        test.skipTest(f"cannot mount a tmpfs ({options}) on the state directory (needs root): {r.stderr.strip()}")
    try:
        yield state
    finally:
        d.stop()
        subprocess.run(["umount", "-l", state], capture_output=True)


def set_aside_once(state):
    """The one corrupt history set aside. The error counter moves before the
    file is renamed: waited for, not read right after the counter."""
    return wait_for(lambda: (lambda a: a if len(a) == 1 else None)(glob.glob(os.path.join(state, "nvmond.db.corrupt-*"))),
                    20, "the corrupt database set aside")


class StoreResilienceTest(unittest.TestCase):
    def serve_all_drives_despite_the_store(self, d, reason):
        m = d.wait_metric(lambda m: all_up(m) and store_errors(m, reason) > 0, 20,
                          f"every drive up and a {reason} store error counted")
        self.assertFalse(d.exited())
        # Health metrics come from the drives, not the history.
        for s in SERIALS:
            self.assertGreater(value(m, "nvme_data_written_bytes_total", serial=s), 0)
        return m

    def test_corrupt_database_is_set_aside_and_a_fresh_one_started(self):
        d = Daemon(CONFIG)
        state = os.path.join(d.dir, "state")
        os.makedirs(state)
        garbage = b"this is not an SQLite database\n" * 200
        with open(os.path.join(state, "nvmond.db"), "wb") as f:
            f.write(garbage)
        d.start()
        try:
            self.serve_all_drives_despite_the_store(d, "corrupt")
            aside = set_aside_once(state)
            with open(aside[0], "rb") as f:
                self.assertEqual(f.read(), garbage, "the corrupt file must be kept as it was")
            wait_for(lambda: sample_rows(state) >= len(SERIALS), 20, "samples in the fresh database")
            self.assertEqual(d.log_text().count("history store failing"), 1, d.log_text())
        finally:
            d.stop()

    def test_page_corruption_found_at_restart(self):
        d = Daemon(CONFIG).start()
        state = os.path.join(d.dir, "state")
        try:
            wait_for(lambda: sample_rows(state) >= 5 * len(SERIALS), 20, "some history")
        finally:
            self.assertEqual(d.stop(), 0)
        db = os.path.join(state, "nvmond.db")
        with open(db, "r+b") as f:
            page = int.from_bytes(f.read(18)[16:18], "big")
            size = os.path.getsize(db)
            self.assertGreater(size, 2 * page)
            f.seek(page)  # keep the header page: the damage is inside
            f.write(b"\xa5" * (size - page))
        d.start()
        try:
            m = self.serve_all_drives_despite_the_store(d, "corrupt")
            self.assertEqual([s for s in m if s.labels.get("serial") == ""], [])
            set_aside_once(state)
            wait_for(lambda: sample_rows(state) >= len(SERIALS), 20, "samples in the fresh database")
        finally:
            d.stop()

    def test_read_only_state_directory(self):
        d = Daemon(CONFIG)
        with state_on_tmpfs(self, d, "ro,size=1m"):
            d.start()
            self.serve_all_drives_despite_the_store(d, "read_only")
            # Logged once, not once per poll (the error is counted just before).
            d.wait_log("history store failing", 10)
            self.assertEqual(d.log_text().count("history store failing"), 1, d.log_text())

    def test_a_filesystem_filled_under_the_daemon_backs_off_and_never_claims_a_recovery(self):
        """The database still opens on a full filesystem and every write
        fails: each retry must wait twice as long as the last, and the log
        say "failing" once and never "recovered" until a write lands."""
        d = Daemon(CONFIG)
        with state_on_tmpfs(self, d, "size=8m") as state:
            d.start()
            wait_for(lambda: sample_rows(state) >= len(SERIALS), 20, "some history")
            fill(os.path.join(state, "filler"))
            # Retries after 1, 2 and 4 s: the fourth error comes 7 s after the first.
            d.wait_metric(lambda m: store_errors(m, "full") >= 4, 30, "four disk-full errors")
            log = d.log_text()
            self.assertEqual(log.count("history store failing"), 1, log)
            self.assertNotIn("history store recovered", log)
            self.assertTrue(all_up(d.metrics()))

    def test_full_filesystem_then_space_freed(self):
        d = Daemon(CONFIG)
        with state_on_tmpfs(self, d, "size=512k") as state:
            filler = os.path.join(state, "filler")
            fill(filler)
            d.start()
            self.serve_all_drives_despite_the_store(d, "full")
            self.assertEqual(sample_rows(state), 0)
            os.remove(filler)
            wait_for(lambda: sample_rows(state) >= 2 * len(SERIALS), 45, "samples written after space was freed")
            # Said once the write that proved it returned: after the rows are on disk.
            d.wait_log("history store recovered", 10)
            self.assertTrue(all_up(d.metrics()))

    def second_daemon_is_refused(self, delete_lock_file):
        first = Daemon(CONFIG).start()
        try:
            state = os.path.join(first.dir, "state")
            if delete_lock_file:
                os.remove(os.path.join(state, "nvmond.lock"))
            second = Daemon(CONFIG)
            with open(second.config, "w") as f:
                with open(first.config) as g:
                    f.write(g.read().replace(str(first.port), str(second.port)))
            log = open(second.log_path, "ab")
            from nvmond_harness import NVMOND
            rc = subprocess.run([NVMOND, "--config", second.config], stdout=log, stderr=subprocess.STDOUT,
                                timeout=20).returncode
            log.close()
            text = second.log_text()
            self.assertNotEqual(rc, 0, text)
            self.assertIn(f"state_dir {state} is in use by another nvmond (pid {first.proc.pid})", text)
            # The first one is untouched.
            self.assertTrue(all_up(first.wait_metric(all_up, 10, "the first daemon still serving")))
        finally:
            first.stop()

    def test_second_daemon_on_the_same_state_directory_exits(self):
        self.second_daemon_is_refused(delete_lock_file=False)

    def test_second_daemon_exits_even_after_the_lock_file_is_deleted(self):
        # The lock is on the directory itself: a deleted nvmond.lock used to
        # let a second daemon in, which resumed the first one's live runs.
        self.second_daemon_is_refused(delete_lock_file=True)


if __name__ == "__main__":
    unittest.main()
