"""Group commit under kill -9: 32 drives (by default) polled every second on
the real clock share history transactions (each holds a tick of many
drives, never one drive-poll), and a kill -9 at any moment loses at most one
tick. After each kill the database is read directly: every drive's newest
stored sample is at most one poll interval older than the sample /metrics
acknowledged just before the kill (at most that one is lost), and the file
passes SQLite's integrity check. Then the daemon starts again on it, three
times.

NVMOND_GROUP_COMMIT_DRIVES and NVMOND_GROUP_COMMIT_KILLS scale it up by
hand (the full check is 256 drives and 20 kills; it needs a host that
keeps up with 256 polls a second besides the test's own scrapes); CI runs
the default.
"""
import contextlib
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SANITIZED, Daemon, config, find, parse, sim  # noqa: E402

DRIVES = int(os.environ.get("NVMOND_GROUP_COMMIT_DRIVES", "32"))
SERIALS = [f"GC-{i:03d}" for i in range(DRIVES)]
TICK = 1.0  # poll_interval below, seconds
KILLS = int(os.environ.get("NVMOND_GROUP_COMMIT_KILLS", "3"))

CONFIG = config(*(sim(f"d{i}", s, ["datacenter", "generic"][i % 2], write_rate="200MB")
                  for i, s in enumerate(SERIALS)), poll_interval="1s", command_timeout="2s")


def by_serial(m, name):
    """serial -> value of `name`, in one pass (256 drives x 40k samples by find() would take minutes)."""
    return {x.labels["serial"]: x.value for x in m if x.name == name and "serial" in x.labels}


def collections(m):
    polled = by_serial(m, "nvmond_collections_total")
    return {s: polled.get(s, 0) for s in SERIALS}


def newest_stored(db):
    """serial -> newest sample time (s), read as an operator would after the crash."""
    with contextlib.closing(sqlite3.connect(db, timeout=5)) as c:
        rows = c.execute("SELECT d.serial, max(s.time_ns) FROM samples s JOIN drives d ON d.id = s.drive_id "
                         "GROUP BY d.serial").fetchall()
        check = c.execute("PRAGMA integrity_check").fetchall()
    return {serial: ns / 1e9 for serial, ns in rows}, check


# Its bounds are a tick of the real clock: a sanitized daemon on a loaded
# host misses ticks, which says nothing about group commit.
@unittest.skipIf(SANITIZED, "tick-bound timing is meaningless under the sanitizers")
class GroupCommitTest(unittest.TestCase):
    def test_kill_9_loses_at_most_one_tick_and_a_transaction_holds_a_tick_of_drives(self):
        d = Daemon(CONFIG)
        db = os.path.join(d.dir, "state", "nvmond.db")
        for kill in range(KILLS):
            d.start()
            try:
                base = collections(d.metrics())
                # A few ticks since this start for every drive, so the kill lands
                # in a steady state, not in the first batch.
                d.wait_metric(lambda m: all(collections(m)[s] >= base[s] + 3 for s in SERIALS), 30 + DRIVES / 4,
                              f"three polls of each of {DRIVES} drives")
                # The scrape the kill follows at once: what it acknowledged is
                # read after the kill, so the bound is tight however long
                # parsing 256 drives' exposition takes.
                text = d.scrape()
            finally:
                d.kill9()
            m = parse(text)
            acknowledged = by_serial(m, "nvmond_last_collection_timestamp_seconds")
            commits = sum(x.value for x in find(m, "nvmond_store_commits_total"))
            polls = sum(collections(m).values())
            stored, check = newest_stored(db)
            self.assertEqual(check, [("ok",)], f"kill {kill + 1}")
            for s in SERIALS:
                self.assertIn(s, stored, f"kill {kill + 1}: no sample of {s} on disk")
                # Samples are a tick apart (give or take the poll's own jitter):
                # newer than half a tick before the previous one, that one is
                # on disk and at most the acknowledged one is lost.
                self.assertGreater(stored[s], acknowledged[s] - 1.5 * TICK,
                                        f"kill {kill + 1}: {s} acknowledged at {acknowledged[s]:.3f}, "
                                        f"on disk only up to {stored[s]:.3f}")
            # A transaction holds a tick of many drives, not one drive-poll: on
            # average at least a quarter of the fleet (a tick whose polls an
            # overloaded host spreads out may be split, a skipped tick still
            # commits the others).
            self.assertGreaterEqual(polls / commits, DRIVES / 4,
                                    f"kill {kill + 1}: {commits} commits for {polls} drive-polls")
            # A long hand-run at 256 drives shows where it is.
            print(f"kill {kill + 1}/{KILLS}: integrity ok, {polls / commits:.0f} drive-polls per commit, "
                  f"newest on disk within {max(acknowledged[s] - stored[s] for s in SERIALS):.2f} s "
                  "of the acknowledged sample", file=sys.stderr, flush=True)


if __name__ == "__main__":
    unittest.main()
