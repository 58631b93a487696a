"""A [[soak]] PTS run in the daemon survives kill -9: killed at a random
round and restarted, it resumes at the next round and ends with exactly 600
distinct rounds in the store (read with sqlite3, as an operator would).

`nvmonctl report ID` reads the same run from the store by its id: while the
daemon writes rounds (a report of the rounds so far), and once it is done,
where the page equals the one rendered from the run's directory."""
import json
import os
import random
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, nvmonctl, sim, store_rows, table, wait_for  # noqa: E402


def ctl(*args):
    return nvmonctl(*args, timeout=60)

SOAK_CONFIG = config(
    # A soak on a simulated drive keeps pace with the daemon's clock: at 3600x
    # its 600 one-minute rounds take 10 s.
    table("[clock]", mode="accelerated", factor=3600),
    sim("dc0", "SIM-DC0", "datacenter"),
    table("[[soak]]", name="dc0-wsat", test="wsat", target="sim:dc0"))


class DaemonSoakTest(unittest.TestCase):
    def rounds(self, db):
        try:
            return store_rows(db, "SELECT COUNT(*), COUNT(DISTINCT idx), MIN(idx), MAX(idx) FROM pts_rounds")[0]
        except sqlite3.Error:
            return (0, 0, None, None)

    def status(self, db):
        return store_rows(db, "SELECT id, status FROM pts_runs")

    def test_a_soak_killed_with_kill_9_resumes_and_ends_with_every_round_once(self):
        d = Daemon(SOAK_CONFIG)
        db = os.path.join(d.dir, "state", "runs.db")
        kill_at = random.randint(20, 400)  # margin: the soak commits several rounds per poll
        state = os.path.join(d.dir, "state")
        d.start()
        try:
            wait_for(lambda: self.rounds(db)[0] >= kill_at, 120, f"round {kill_at}")
            # By id from the store while the daemon keeps committing rounds.
            live = ctl("report", "1", "--state-dir", state)
            self.assertEqual(live.returncode, 0, live.stderr)
            self.assertIn("SIM-DC0", live.stdout)
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
        # The run by id, found through the daemon's config, renders the very
        # page its directory does: the store held the whole run.json.
        by_id, by_dir = os.path.join(d.dir, "by-id.html"), os.path.join(d.dir, "by-dir.html")
        r = ctl("report", "1", "--config", d.config, "--html", by_id)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = ctl("report", os.path.join(state, "runs", "dc0-wsat-1"), "--html", by_dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(by_id) as a, open(by_dir) as b:
            page_by_id, page_by_dir = a.read(), b.read()
        # Only the footer naming where the run came from differs.
        self.assertIn(f"from run 1 in {db}.", page_by_id)
        self.assertEqual(page_by_id.replace(f"run 1 in {db}", "RUN"),
                         page_by_dir.replace(os.path.join(state, "runs", "dc0-wsat-1", "run.json"), "RUN"))
        r = ctl("compare", "1", os.path.join(state, "runs", "dc0-wsat-1"), "--state-dir", state)
        self.assertEqual(r.returncode, 0, r.stderr)
        header, by_id_row, by_dir_row = r.stdout.splitlines()
        self.assertIn("SIM-DC0", by_id_row)
        self.assertEqual(by_id_row.replace("#1", "#2", 1), by_dir_row)
        # Unknown ids and missing databases are exit 2 with what was looked for.
        r = ctl("report", "99", "--config", d.config)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{db}: no run with id 99", r.stderr)
        r = ctl("report", "1", "--state-dir", os.path.join(d.dir, "nowhere"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no database at " + os.path.join(d.dir, "nowhere", "runs.db"), r.stderr)
        print(f"killed after {done_before} rounds, resumed to 600", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
