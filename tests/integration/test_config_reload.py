"""SIGHUP with a configuration that must be refused: an empty file, a nan
value, the file replaced by a directory. Each is logged with its reason, the
running configuration keeps serving every drive, and the state directory (the
SQLite history the daemon holds open) does not move. A valid reload that
changes state_dir keeps the running one too: moving it needs a restart.

Before: an empty file on reload dropped every drive and moved the state
directory to $STATE_DIRECTORY or /var/lib/nvmond.
"""
import os
import shutil
import signal
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, get, sim, table, value  # noqa: E402

CONFIG = config(sim("a", "SIM-A", "datacenter"), sim("b", "SIM-B", "consumer"),
                poll_interval="200ms", command_timeout="1s")

SERIALS = ("SIM-A", "SIM-B")


class RejectedReloadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Where an empty configuration's default state_dir would point.
        cls.elsewhere = tempfile.mkdtemp(prefix="nvmond-elsewhere-")
        os.rmdir(cls.elsewhere)
        cls.d = Daemon(CONFIG)
        with open(cls.d.config) as f:
            cls.good = f.read()
        cls.state = os.path.join(cls.d.dir, "state")
        cls.d.start(env={"STATE_DIRECTORY": cls.elsewhere})
        cls.d.wait_metric(lambda m: all(cls.up(m, s) for s in SERIALS), 20, "both drives up")

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()
        shutil.rmtree(cls.elsewhere, ignore_errors=True)

    @staticmethod
    def up(m, serial):
        return get(m, "nvme_up", serial=serial) == 1

    def open_databases(self):
        """Paths of the SQLite files the daemon holds open."""
        fd_dir = f"/proc/{self.d.proc.pid}/fd"
        paths = set()
        for fd in os.listdir(fd_dir):
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target.endswith("nvmond.db"):
                paths.add(target)
        return paths

    def polls(self, m):
        return {s: value(m, "nvmond_collections_total", serial=s) for s in SERIALS}

    def reload_and_expect_rejection(self, write, reason):
        d = self.d
        before_dbs = self.open_databases()
        self.assertEqual(before_dbs, {os.path.join(self.state, "nvmond.db")})
        mark = len(d.log_text())
        write()
        d.signal(signal.SIGHUP)
        d.wait_log(r"reload rejected, keeping the running configuration: " + reason, 10, mark)
        # Still serving every drive: each is polled again after the rejection.
        rejected_at = self.polls(d.metrics())
        d.wait_metric(lambda m: all(self.up(m, s) and self.polls(m)[s] > rejected_at[s] for s in SERIALS),
                      10, "both drives polled after the rejected reload")
        self.assertFalse(d.exited())
        self.assertEqual(self.open_databases(), before_dbs)
        self.assertFalse(os.path.exists(self.elsewhere), "an empty reload moved the state directory")

    def write_config(self, text):
        def write():
            with open(self.d.config, "w") as f:
                f.write(text)
        return write

    def test_1_empty_file(self):
        path = self.d.config.replace(".", r"\.")
        self.reload_and_expect_rejection(self.write_config(""), path + r":1:1: the file is empty: no drives to monitor")

    def test_2_nan_value(self):
        path = self.d.config.replace(".", r"\.")
        text = self.good.replace('profile = "consumer"', 'profile = "consumer"\nambient_c = nan')
        line = text.splitlines().index("ambient_c = nan") + 1
        self.reload_and_expect_rejection(
            self.write_config(text), path + rf":{line}:13: sim\[1\]\.ambient_c: must be a finite number, not nan")

    def test_3_directory_in_place_of_the_file(self):
        path = self.d.config.replace(".", r"\.")

        def replace_by_directory():
            os.remove(self.d.config)
            os.mkdir(self.d.config)
        try:
            self.reload_and_expect_rejection(replace_by_directory,
                                             path + r": is a directory, not a configuration file")
        finally:
            if os.path.isdir(self.d.config):
                os.rmdir(self.d.config)
            self.write_config(self.good)()

    def test_4_state_dir_change_waits_for_a_restart(self):
        d = self.d
        before_dbs = self.open_databases()
        mark = len(d.log_text())
        moved = self.good.replace(self.state, self.elsewhere) + "\n" + table("[[sim]]", name="c", serial="SIM-C")
        self.write_config(moved)()
        d.signal(signal.SIGHUP)
        d.wait_log(r"state_dir changes need a restart; keeping " + self.state.replace(".", r"\."), 10, mark)
        # The rest of the reload applies: the new drive is polled.
        d.wait_metric(lambda m: self.up(m, "SIM-C"), 10, "the reloaded drive SIM-C")
        self.assertEqual(self.open_databases(), before_dbs)
        self.assertFalse(os.path.exists(self.elsewhere))


if __name__ == "__main__":
    unittest.main()
