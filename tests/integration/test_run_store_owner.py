"""One owner per durable file: the soak's runs live in STATE_DIR/runs.db,
apart from the history (nvmond.db), and survive it.

- A history whose `samples` pages are overwritten while a [[soak]] runs is
  set aside alone: the run goes on, `nvmonctl report 1` finds it; after a
  restart the finished once-soak stays done, and `nvmonctl start NAME` runs
  it as run 2, leaving runs/NAME-1 as it was.
- A damaged `pts_rounds` page is found when the daemon starts: counted in
  nvmond_store_errors_total{reason="corrupt"}, the file set aside, history
  and show work, and the next run takes a new id (runs/NAME-1 kept).
- A run store that could not be opened at start is retried: `nvmonctl
  start` works once the cause is gone.
- kill -9, 20 times, during a soak while the history is being corrupted:
  every round committed before each kill is still there after the restart.

Pages are damaged with real writes into the database file, at the leaf
pages a second SQLite connection finds through dbstat.
"""
import contextlib
import glob
import json
import os
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, find, nvmonctl, sim, table, wait_for  # noqa: E402

SOAK = "dc0-wsat"


def soak_config(sock, factor, rounds, poll_interval):
    return config(
        table("[control]", socket=sock),
        # One-minute rounds at `factor`x: factor/60 rounds a second.
        table("[clock]", mode="accelerated", factor=factor),
        sim("dc0", "SIM-DC0", "datacenter"),
        table("[[soak]]", name=SOAK, test="wsat", target="sim:dc0", params={"rounds": rounds, "round": "1m"}),
        poll_interval=poll_interval)


def store_errors(m, reason):
    return sum(s.value for s in find(m, "nvmond_store_errors_total", reason=reason))


def runs_database(state):
    """Where this build keeps the runs: runs.db, else (before the split) nvmond.db."""
    runs = os.path.join(state, "runs.db")
    return runs if os.path.exists(runs) else os.path.join(state, "nvmond.db")


def committed(state):
    """{run id: set of round indexes} committed in the runs' database, read
    by a second connection; {} while it cannot be read."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{runs_database(state)}?mode=ro", uri=True, timeout=5)) as c:
            out = {}
            for run, idx in c.execute("SELECT run_id, idx FROM pts_rounds"):
                out.setdefault(run, set()).add(idx)
            return out
    except sqlite3.Error:
        return {}


def set_aside(db):
    return [p for p in glob.glob(db + ".corrupt-*") if not p.endswith(("-wal", "-shm"))]


# The history's samples: the per-drive history and the log of the newest
# ones (`samples` is a view over both).
SAMPLE_TABLES = ("sample_history", "sample_log")


def damage_leaves(db, table_name, first_only=False, then_write=None):
    """Overwrites the leaf pages of `table_name` (a name or a tuple of
    names), or its first one, with garbage, after a checkpoint has put every
    committed page in the main file. `then_write`, run afterwards on the same connection, makes a live
    daemon's connection drop its page cache, as any other writer would."""
    with contextlib.closing(sqlite3.connect(db, timeout=5)) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        names = table_name if isinstance(table_name, tuple) else (table_name,)
        pages = c.execute(f"SELECT pageno, pgsize FROM dbstat WHERE name IN ({','.join('?' * len(names))}) "
                          "AND pagetype = 'leaf' ORDER BY pageno", names).fetchall()
        assert pages, f"no leaf page of {table_name} in {db}"
        if first_only:
            pages = pages[:1]
        with open(db, "r+b") as f:
            for pageno, size in pages:
                f.seek((pageno - 1) * size)
                f.write(b"\xa5" * size)
        if then_write:
            c.execute(then_write)
            c.commit()
    return len(pages)


class RunStoreOwnerTest(unittest.TestCase):
    def daemon(self, factor=600, rounds=100, poll_interval="10s"):
        d = Daemon("")
        self.sock = os.path.join(d.dir, "control.sock")
        d.write_config(soak_config(self.sock, factor, rounds, poll_interval))
        self.state = os.path.join(d.dir, "state")
        return d

    def ctl(self, *args):
        return nvmonctl("--socket", self.sock, *args, timeout=60)

    def ctl_json(self, *args):
        r = self.ctl("--json", *args)
        return json.loads(r.stdout) if r.returncode == 0 else None

    def report(self, run):
        return nvmonctl("report", str(run), "--state-dir", self.state, timeout=60)

    def history(self):
        h = self.ctl_json("history")
        return {r["id"]: r["status"] for r in h["runs"]} if h else None

    def test_a_history_corrupted_under_a_running_soak_takes_none_of_its_rounds(self):
        # Polls a second apart: a page the next poll rewrites into the WAL
        # would hide the damage until a checkpoint copied it back over.
        d = self.daemon(poll_interval="600s")
        d.start()
        try:
            wait_for(lambda: len(committed(self.state).get(1, ())) >= 10, 60, "ten rounds of run 1")
            history = os.path.join(self.state, "nvmond.db")

            def damaged_and_found():
                damage_leaves(history, SAMPLE_TABLES, then_write="UPDATE drives SET model = model")
                with contextlib.suppress(AssertionError):
                    return d.wait_metric(lambda m: store_errors(m, "corrupt") > 0, 5, "the corrupt history counted")
            wait_for(damaged_and_found, 30, "the damaged history found")
            # The counter moves before the file is renamed: wait for the file.
            wait_for(lambda: len(set_aside(history)) == 1, 20, "the damaged history set aside")
            # While the soak goes on, its run is found by id where it is written.
            live = self.report(1)
            self.assertEqual(live.returncode, 0, live.stderr)
            self.assertIn("SIM-DC0", live.stdout)
            run_json = os.path.join(self.state, "runs", f"{SOAK}-1", "run.json")
            wait_for(lambda: os.path.exists(run_json), 120, "the soak to finish")
        finally:
            self.assertEqual(d.stop(), 0)
        with open(run_json, "rb") as f:
            finished = f.read()
        self.assertEqual(len(json.loads(finished)["rounds"]), 100)
        self.assertEqual(committed(self.state), {1: set(range(100))})
        self.assertEqual(set_aside(os.path.join(self.state, "runs.db")), [])

        # A finished once-soak is not run again by a restart; an operator's
        # `nvmonctl start NAME` runs it as run 2, beside run 1.
        mark = len(d.log_text())
        d.start()
        try:
            d.wait_log(rf"soak {SOAK}: not started: it ran once as run 1", 30, mark)
            started = self.ctl("start", SOAK)
            self.assertEqual(started.returncode, 0, started.stdout + started.stderr)
            d.wait_log(rf"soak {SOAK}: .* started as run (\d+)", 30, mark)
            self.assertRegex(d.log_text()[mark:], rf"soak {SOAK}: .* started as run 2\b")
            self.assertEqual(self.history().get(1), "completed")
        finally:
            self.assertEqual(d.stop(), 0)
        with open(run_json, "rb") as f:
            self.assertEqual(f.read(), finished, "run 1's files were overwritten")

    def test_a_damaged_rounds_page_is_found_at_start_counted_and_set_aside(self):
        d = self.daemon(rounds=300)
        d.start()
        try:
            wait_for(lambda: len(committed(self.state).get(1, ())) >= 60, 60, "sixty rounds of run 1")
        finally:
            d.kill9()
        db = runs_database(self.state)
        damage_leaves(db, "pts_rounds", first_only=True)
        d.start()
        try:
            d.wait_metric(lambda m: store_errors(m, "corrupt") > 0, 20, "the damaged run store counted")
            # The counter moves before the file is renamed: wait for the file.
            wait_for(lambda: len(set_aside(db)) == 1, 20, "the damaged run store set aside")
            # The soak starts again as a run of its own, never as run 1.
            d.wait_log(rf"soak {SOAK}: .* started as run 2", 30)
            self.assertEqual(self.ctl("history").returncode, 0)
            shown = self.ctl_json("show", "2")
            self.assertIsNotNone(shown)
            self.assertEqual(sorted(self.history()), [2])
        finally:
            self.assertEqual(d.stop(), 0)
        self.assertTrue(os.path.isdir(os.path.join(self.state, "runs", f"{SOAK}-1")))

    def test_a_run_store_that_could_not_open_at_start_serves_once_it_can(self):
        d = self.daemon()
        d.write_config(config(table("[control]", socket=self.sock), sim("dc0", "SIM-DC0", "datacenter"),
                              table("[clock]", mode="accelerated", factor=600), poll_interval="10s"))
        # Directories where the databases belong: neither store can open.
        for name in ("nvmond.db", "runs.db"):
            os.makedirs(os.path.join(self.state, name))
        d.start()
        try:
            d.wait_metric(lambda m: sum(store_errors(m, r) for r in ("io", "read_only")) > 0, 20,
                          "the store errors counted")
            for name in ("nvmond.db", "runs.db"):
                os.rmdir(os.path.join(self.state, name))
            started = wait_for(lambda: (lambda r: r if r.returncode == 0 else None)(
                self.ctl("start", "wsat", "--target", "sim:dc0", "--set", "rounds=5", "--set", "round=1m")),
                40, "a run to start once the store can open")
            self.assertIn("started run 1", started.stdout)
            wait_for(lambda: self.history() and self.history().get(1) == "completed", 30, "run 1 to complete")
            self.assertEqual(self.report(1).returncode, 0)
        finally:
            self.assertEqual(d.stop(), 0)

    def test_kill_9_twenty_times_while_the_history_is_corrupted_loses_no_committed_round(self):
        d = self.daemon(factor=3600, rounds=100000)
        history = os.path.join(self.state, "nvmond.db")
        seen = {}
        for kill in range(20):
            d.start()
            try:
                # Whatever was committed before the last kill is still there,
                # for the daemon and for `nvmonctl report`.
                for run, rounds in seen.items():
                    shown = wait_for(lambda: self.ctl_json("show", str(run)), 10, f"run {run} shown")
                    self.assertTrue(rounds <= {r["index"] for r in shown["rounds"]},
                                    f"kill {kill}: run {run} lost {sorted(rounds - {r['index'] for r in shown['rounds']})[:5]}")
                    r = self.report(run)
                    self.assertEqual(r.returncode, 0, f"kill {kill}: {r.stderr}")
                before = sum(len(v) for v in seen.values())
                wait_for(lambda: sum(len(v) for v in committed(self.state).values()) >= before + 2, 20,
                         f"new rounds after restart {kill}")
            finally:
                d.kill9()
            # The next daemon finds its history damaged (its first read
            # touches every samples page) while the soak resumes.
            with contextlib.suppress(AssertionError, sqlite3.Error):
                damage_leaves(history, SAMPLE_TABLES)
            now = committed(self.state)
            for run, rounds in seen.items():
                self.assertTrue(rounds <= now.get(run, set()), f"kill {kill}: run {run} lost rounds in the file")
            seen = now
        self.assertEqual(list(seen), [1], "every restart resumes the same run")
        self.assertGreaterEqual(len(seen[1]), 40)
        self.assertGreaterEqual(len(set_aside(history)), 10, "the history was not damaged as meant")
        print(f"{len(seen[1])} rounds over 20 kills, {len(set_aside(history))} histories set aside", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
