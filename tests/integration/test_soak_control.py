"""Soaks as an operator meets them, through nvmonctl only: start a simulated
WSAT, watch status advance, stop it, find it interrupted with its rounds in
history; a second start on the same drive queues. A [[soak]]'s run survives
a reload with an unchanged table (same run id, rounds go on) and a SIGTERM
(closed as interrupted, resumed by the next daemon under the same id)."""
import json
import os
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import (Daemon, config, has_series, nvmonctl, promtool_check_metrics, sim, table,  # noqa: E402
                            store_rows, value, wait_for)

CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    # Simulated soaks keep pace with the clock: one-minute rounds, 10 a second.
    table("[clock]", mode="accelerated", factor=600),
    sim("dc0", "SIM-DC0", "datacenter"),
    sim("dc1", "SIM-DC1", "datacenter"),
    table("[[soak]]", name="dc0-wsat", test="wsat", target="sim:dc0", params={"rounds": 1000000, "round": "1m"}),
    poll_interval="1s")


class SoakControl(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="nvmond-soakctl-")
        cls.sock = os.path.join(cls.dir, "control.sock")
        cls.d = Daemon(CONFIG.replace("@SOCKET@", cls.sock), workdir=cls.dir).start()
        cls.db = os.path.join(cls.dir, "state", "runs.db")
        wait_for(lambda: os.path.exists(cls.sock), 10, "the control socket")

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def ctl(self, *args, ok=True):
        r = nvmonctl("--socket", self.sock, *args)
        if ok:
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r

    def json(self, *args):
        return json.loads(self.ctl("--json", *args).stdout)

    def run_of(self, name):
        for r in self.json("status")["runs"]:
            if r["name"] == name:
                return r
        return None

    def stored_rounds(self, run):
        return store_rows(self.db, "SELECT COUNT(*), COUNT(DISTINCT idx) FROM pts_rounds WHERE run_id = ?", run)[0]

    def test_a_started_run_advances_stops_as_interrupted_and_a_second_one_queues(self):
        started = self.json("start", "wsat", "--target", "sim:dc1", "--set", "rounds=1000000")
        self.assertFalse(started["queued"], started)
        run = started["run"]
        first = wait_for(lambda: next((r for r in self.json("status")["runs"] if r["id"] == run and r["round"] > 0),
                                      None), 30, "the run's first rounds")
        self.assertEqual(first["serial"], "SIM-DC1")
        self.assertEqual(first["status"], "running")
        later = wait_for(lambda: next((r for r in self.json("status")["runs"]
                                       if r["id"] == run and r["round"] > first["round"]), None),
                         30, "status to advance")
        human = self.ctl("status").stdout
        self.assertIn(str(run), human)

        second = self.json("start", "wsat", "--target", "sim:dc1", "--set", "rounds=2")
        self.assertTrue(second["queued"], second)
        self.assertIn("busy", second["detail"])
        queued = [q["name"] for q in self.json("status")["queued"]]
        self.assertIn(second["name"], queued)

        self.ctl("stop", str(run))
        ended = wait_for(lambda: next((r for r in self.json("history", "--drive", "SIM-DC1")["runs"]
                                       if r["id"] == run and r["status"] == "interrupted"), None),
                         30, "the run in history as interrupted")
        self.assertGreaterEqual(ended["round"], later["round"])
        shown = self.json("show", str(run))
        self.assertEqual(len(shown["rounds"]), ended["round"])
        self.assertEqual(self.stored_rounds(run), (ended["round"], ended["round"]))
        self.assertIn("interrupted", self.ctl("history").stdout)

        # The queued run starts once the drive is free, and ends on its own.
        done = wait_for(lambda: next((r for r in self.json("history", "--drive", "SIM-DC1")["runs"]
                                      if r["name"] == second["name"] and r["status"] == "completed"), None),
                        60, "the queued run to run and complete")
        self.assertGreater(done["id"], run)

    def test_pause_without_a_run_id_leaves_every_run_running(self):
        soak = wait_for(lambda: (lambda r: r if r and r["status"] == "running" else None)(self.run_of("dc0-wsat")),
                        30, "the [[soak]] to run")
        r = self.ctl("pause", ok=False)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        r = self.ctl("stop", ok=False)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(self.run_of("dc0-wsat")["status"], "running")
        self.assertEqual(self.run_of("dc0-wsat")["id"], soak["id"])

    def test_a_scrape_while_the_soak_runs_carries_its_series_and_passes_promtool(self):
        soak = wait_for(lambda: (lambda r: r if r and r["round"] > 0 else None)(self.run_of("dc0-wsat")),
                        30, "the [[soak]] to run")
        run = str(soak["id"])
        metrics = self.d.wait_metric(lambda m: has_series(m, "nvmond_soak_round", run=run, serial="SIM-DC0") and
                                     value(m, "nvmond_soak_round", run=run) > 0, 10, "the soak's series")
        names = {s.name for s in metrics}
        for family in ("nvmond_soak_iops", "nvmond_soak_throughput_bytes_per_second", "nvmond_soak_rounds_planned",
                       "nvmond_soak_round_latency_seconds", "nvmond_soak_running", "nvmond_soak_phase"):
            self.assertIn(family, names)
        r = promtool_check_metrics(self.d.scrape())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_an_unknown_target_is_refused_with_the_reason(self):
        r = self.ctl("start", "wsat", "--target", "sim:nope", ok=False)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("sim:nope", r.stderr)

    def test_z_a_soak_survives_a_reload_and_a_restart_under_the_same_run_id(self):
        soak = wait_for(lambda: (lambda r: r if r and r["round"] > 0 else None)(self.run_of("dc0-wsat")),
                        30, "the [[soak]] to run")
        log_at = len(self.d.log_text())
        self.d.signal(signal.SIGHUP)
        self.d.wait_log(r"reloaded", 20, log_at)
        after = wait_for(lambda: (lambda r: r if r and r["round"] > soak["round"] + 5 else None)(self.run_of("dc0-wsat")),
                         30, "the soak's rounds to go on after the reload")
        self.assertEqual(after["id"], soak["id"])
        self.assertNotRegex(self.d.log_text()[log_at:], r"soak dc0-wsat: .*(started|resumed)")

        self.assertEqual(self.d.stop(), 0)
        ((status, header),) = store_rows(self.db, "SELECT status, header FROM pts_runs WHERE id = ?", soak["id"])
        self.assertEqual(status, "interrupted")
        self.assertTrue(json.loads(header)["resumable"])
        count, distinct = self.stored_rounds(soak["id"])
        self.assertEqual(count, distinct)

        log_at = len(self.d.log_text())
        self.d.start()
        self.d.wait_log(rf"soak dc0-wsat: wsat on sim:dc0 resumed at round {count} as run {soak['id']}", 30, log_at)
        resumed = wait_for(lambda: (lambda r: r if r and r["round"] > count else None)(self.run_of("dc0-wsat")),
                           30, "the resumed soak to go on")
        self.assertEqual(resumed["id"], soak["id"])


HUNG = config(
    sim("stuck", "SIM-STUCK", "datacenter", fault="hang", hang="1h"),
    table("[[soak]]", name="stuck-wsat", test="wsat", target="sim:stuck"),
    poll_interval="1s", command_timeout="500ms")


class HungDeviceShutdown(unittest.TestCase):
    def test_sigterm_with_io_hung_exits_within_the_stop_timeout_and_closes_the_run(self):
        d = Daemon(HUNG).start()
        db = os.path.join(d.dir, "state", "runs.db")
        try:
            d.wait_log(r"soak stuck-wsat: wsat on sim:stuck started as run 1", 20)
            d.wait_log(r"sim:stuck: I/O blocked, the drive hangs", 20)
        finally:
            t0 = time.monotonic()
            code = d.stop(timeout=10)  # the unit's TimeoutStopSec
            took = time.monotonic() - t0
        self.assertEqual(code, 0, d.log_text()[-2000:])
        self.assertLess(took, 10)
        self.assertIn("did not stop within 5.0 s", d.log_text())
        ((status, header),) = store_rows(db, "SELECT status, header FROM pts_runs WHERE id = 1")
        self.assertEqual(status, "interrupted")
        self.assertTrue(json.loads(header)["resumable"])


FILE_SOAK = config(
    table("[safety]", allow_dirs=["@SCRATCH@"]),
    sim("dc0", "SIM-DC0", "datacenter"),
    table("[[soak]]", name="file-wsat", test="wsat", target="@SCRATCH@/target.img",
          params={"rounds": 3, "round": "1s", "threads": 1, "queue_depth": 4}))


class RealIoSoak(unittest.TestCase):
    def test_a_soak_on_a_real_file_does_io_uring_writes_and_leaves_its_report(self):
        d = Daemon("")
        scratch = os.path.join(d.dir, "scratch")
        os.mkdir(scratch)
        with open(os.path.join(scratch, "target.img"), "wb") as f:
            f.truncate(64 << 20)
        d.write_config(FILE_SOAK.replace("@SCRATCH@", scratch))
        db = os.path.join(d.dir, "state", "runs.db")
        d.start()
        try:
            d.wait_log(r"soak file-wsat: completed \(3 rounds\)", 60)
        finally:
            self.assertEqual(d.stop(), 0)
        ((run_id, status),) = store_rows(db, "SELECT id, status FROM pts_runs WHERE name = 'file-wsat'")
        rounds = [json.loads(r) for (r,) in store_rows(db, "SELECT data FROM pts_rounds WHERE run_id = ? ORDER BY idx",
                                                       run_id)]
        self.assertEqual(status, "completed")
        self.assertEqual(len(rounds), 3)
        for r in rounds:
            self.assertGreater(r["ops"]["write"]["ops"], 0)
            self.assertEqual(r["ops"]["write"]["errors"], 0)
        out = os.path.join(d.dir, "state", "runs", f"file-wsat-{run_id}")
        with open(os.path.join(out, "run.json")) as f:
            self.assertNotEqual(json.load(f)["clock"], "simulated")
        self.assertTrue(os.path.getsize(os.path.join(out, "report.html")) > 0)


if __name__ == "__main__":
    unittest.main()
