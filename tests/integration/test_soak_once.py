"""`schedule = "once"` means once: a finished once-soak is not run again by a
daemon restart (no NAME-2 run, no writes to its drive: it is not purged
again); its definition changed (other params), the next start runs it again;
`nvmonctl start NAME` runs it again on an operator's word."""
import json
import os
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, nvmonctl, sim, store_rows, table, wait_for  # noqa: E402


def conf(sock, rounds):
    return config(
        table("[control]", socket=sock),
        sim("dc0", "ONCE-DC0", "datacenter"),
        table("[[soak]]", name="dc0-wsat", test="wsat", target="sim:dc0", schedule="once",
              params={"rounds": rounds, "round": "1s"}),
        poll_interval="200ms")


class OnceMeansOnce(unittest.TestCase):
    def runs(self):
        try:
            return store_rows(self.db, "SELECT id, status FROM pts_runs ORDER BY id")
        except sqlite3.Error:  # not created (or not migrated) yet
            return []

    def schedule(self):
        r = nvmonctl("--socket", self.sock, "--json", "list")
        if r.returncode != 0:
            return None
        return next((s for s in json.loads(r.stdout)["schedules"] if s["name"] == "dc0-wsat"), None)

    def restart(self, d, rounds):
        self.assertEqual(d.stop(), 0, d.log_text())
        d.write_config(conf(self.sock, rounds))
        log_at = len(d.log_text())
        d.start()
        wait_for(lambda: os.path.exists(self.sock), 20, "the control socket")
        return log_at

    def test_a_finished_once_soak_runs_again_only_when_its_definition_changes_or_an_operator_asks(self):
        work = tempfile.mkdtemp(prefix="nvmond-soak-once-")
        self.sock = os.path.join(work, "control.sock")
        d = Daemon(conf(self.sock, 2), workdir=work).start()
        self.addCleanup(d.stop)
        self.db = os.path.join(d.dir, "state", "runs.db")
        runs_dir = os.path.join(d.dir, "state", "runs")
        wait_for(lambda: os.path.exists(self.db) and self.runs() == [(1, "completed")], 40, "the soak to complete")

        # Restarted with the same definition: it says why it does not run.
        log_at = self.restart(d, 2)
        s = wait_for(lambda: (lambda s: s if s and "ran once as run 1" in s["detail"] else None)(self.schedule()), 20,
                     "the soak to be known as done")
        self.assertEqual(s["state"], "idle")
        m = d.metrics()
        written = get(m, "nvme_data_written_bytes_total", serial="ONCE-DC0")
        polls = get(m, "nvmond_collections_total", serial="ONCE-DC0")
        m = d.wait_metric(lambda m: get(m, "nvmond_collections_total", serial="ONCE-DC0") >= polls + 5, 20,
                          "five more polls")
        self.assertEqual(get(m, "nvme_data_written_bytes_total", serial="ONCE-DC0"), written,
                         "nothing wrote to the drive: no new run, no purge")
        self.assertEqual(self.runs(), [(1, "completed")])
        self.assertEqual(sorted(os.listdir(runs_dir)), ["dc0-wsat-1"])
        self.assertNotRegex(d.log_text()[log_at:], r"soak dc0-wsat: wsat on sim:dc0 started")

        # An operator asks: it runs again as a new run.
        r = nvmonctl("--socket", self.sock, "start", "dc0-wsat")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("started run 2 (dc0-wsat)", r.stdout)
        wait_for(lambda: self.runs() == [(1, "completed"), (2, "completed")], 40, "the operator's run to complete")

        # Its definition changed: the next daemon runs it again, once.
        self.restart(d, 3)
        wait_for(lambda: self.runs()[-1:] == [(3, "completed")], 40, "the changed soak to run and complete")
        self.assertEqual(store_rows(self.db, "SELECT COUNT(*) FROM pts_rounds WHERE run_id = 3"), [(3,)])
        self.assertEqual(sorted(os.listdir(runs_dir)), ["dc0-wsat-1", "dc0-wsat-2", "dc0-wsat-3"])
        # And is done again after another restart.
        self.restart(d, 3)
        wait_for(lambda: (lambda s: s if s and "ran once as run 3" in s["detail"] else None)(self.schedule()), 20,
                 "the changed soak to be known as done")
        self.assertEqual(len(self.runs()), 3)


if __name__ == "__main__":
    unittest.main()
