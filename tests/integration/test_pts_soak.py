"""A [[soak]] PTS run in the daemon survives kill -9: killed at a random
round and restarted, it resumes at the next round and ends with exactly 600
distinct rounds in the store (read with sqlite3, as an operator would)."""
import json
import os
import random
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, wait_for  # noqa: E402

SOAK_CONFIG = """
[daemon]
listen = "127.0.0.1:@PORT@"
state_dir = "@STATE@"

[[sim]]
name = "dc0"
serial = "SIM-DC0"
profile = "datacenter"

[[soak]]
name = "dc0-wsat"
test = "wsat"
target = "sim:dc0"
"""


class DaemonSoakTest(unittest.TestCase):
    def rounds(self, db):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
                return c.execute("SELECT COUNT(*), COUNT(DISTINCT idx), MIN(idx), MAX(idx) FROM pts_rounds").fetchone()
        except sqlite3.Error:
            return (0, 0, None, None)

    def status(self, db):
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
            return c.execute("SELECT id, status FROM pts_runs").fetchall()

    def test_a_soak_killed_with_kill_9_resumes_and_ends_with_every_round_once(self):
        d = Daemon(SOAK_CONFIG)
        db = os.path.join(d.dir, "state", "nvmond.db")
        kill_at = random.randint(20, 400)  # margin: the soak commits several rounds per poll
        d.start()
        try:
            wait_for(lambda: self.rounds(db)[0] >= kill_at, 120, f"round {kill_at}")
        finally:
            d.kill9()
        done_before = self.rounds(db)[0]
        self.assertLess(done_before, 600, "the soak finished before it could be killed")
        self.assertEqual(self.status(db), [(1, "running")])
        d.start()
        try:
            wait_for(lambda: self.status(db) == [(1, "completed")], 180, "the resumed soak to complete")
            d.wait_log(r"soak dc0-wsat: .*started", 5)
        finally:
            self.assertEqual(d.stop(), 0)
        count, distinct, lo, hi = self.rounds(db)
        self.assertEqual((count, distinct, lo, hi), (600, 600, 0, 599))
        runs = [p for p in os.listdir(os.path.join(d.dir, "state", "runs"))]
        self.assertEqual(runs, ["dc0-wsat-1"])
        with open(os.path.join(d.dir, "state", "runs", "dc0-wsat-1", "run.json")) as f:
            run = json.load(f)
        self.assertEqual(len(run["rounds"]), 600)
        self.assertEqual(run["resumed"], 1)
        self.assertTrue(run["steady_state"]["reached"])
        # The daemon writes the run's report beside its run.json.
        with open(os.path.join(d.dir, "state", "runs", "dc0-wsat-1", "report.html")) as f:
            self.assertIn('class="x-span steady-state"', f.read())
        print(f"killed after {done_before} rounds, resumed to 600", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
