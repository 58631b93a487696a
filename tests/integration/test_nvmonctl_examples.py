"""Every nvmonctl subcommand's --help ends in an "Example:" line, and each
example works as written against a running daemon: the example's stand-ins
(the config /etc/nvmond/nvmond.toml, the job file /etc/nvmond/jobs.toml,
the drive sim:dc0 with serial SIM-DC0, run ids 12 and 13) are replaced by
this daemon's own, and the command must exit 0. The subcommands come from
the help itself, so a new one without an example fails here."""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMONCTL, Daemon, config, nvmonctl, sim, table, wait_for  # noqa: E402
from test_jobs import job_toml  # noqa: E402

CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    # One-minute rounds, ten a second.
    table("[clock]", mode="accelerated", factor=600),
    sim("dc0", "SIM-DC0", "datacenter"),
    # Its own drive for the run pause, resume and stop act on, so the start
    # example's run on dc0 never queues it.
    sim("dc1", "SIM-DC1", "datacenter"),
    # And not dc1 itself: the selftest examples leave it in the middle of an
    # extended test, and a drive that is self-testing refuses a run.
    sim("dc2", "SIM-DC2", "datacenter"),
    poll_interval="1s")


def subcommands(help_text):
    """The names under the help's "SUBCOMMANDS:" heading."""
    m = re.search(r"^SUBCOMMANDS:\n((?:  .*\n?)*)", help_text, re.M | re.I)
    return [line.split()[0] for line in m.group(1).splitlines() if line.strip()] if m else []


def every_subcommand(path=()):
    """Each subcommand path, ("status",), ("test",), ("test", "run"), ..."""
    out = []
    for name in subcommands(nvmonctl(*path, "--help").stdout):
        out.append((*path, name))
        out += every_subcommand((*path, name))
    return out


def example_of(path):
    r = nvmonctl(*path, "--help")
    lines = [l for l in r.stdout.splitlines() if l.startswith("Example: ")]
    return r, lines


class HelpExamples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="nvmonctl-examples-")
        cls.sock = os.path.join(cls.dir, "control.sock")
        cls.d = Daemon(CONFIG.replace("@SOCKET@", cls.sock), workdir=cls.dir).start()
        wait_for(lambda: os.path.exists(cls.sock), 10, "the control socket")
        # Two finished runs for show, report and compare.
        cls.finished = [cls.finished_run() for _ in range(2)]

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    @classmethod
    def ctl_json(cls, *args):
        import json
        r = nvmonctl("--socket", cls.sock, "--json", *args)
        assert r.returncode == 0, r.stdout + r.stderr
        return json.loads(r.stdout)

    @classmethod
    def finished_run(cls):
        run = cls.ctl_json("start", "wsat", "--target", "sim:dc0", "--set", "rounds=2")["run"]
        wait_for(lambda: any(r["id"] == run and r["status"] == "completed"
                             for r in cls.ctl_json("history")["runs"]), 60, f"run {run} to complete")
        return run

    def long_run(self):
        return self.ctl_json("start", "wsat", "--target", "sim:dc2", "--set", "rounds=1000000")["run"]

    def argv(self, example, cwd, run_in_progress):
        stand_ins = {
            "nvmonctl": os.path.abspath(NVMONCTL),  # the example runs in its own directory
            "/etc/nvmond/nvmond.toml": self.d.config,
            "/etc/nvmond/jobs.toml": self.job_file(cwd),
            "12": str(run_in_progress if run_in_progress is not None else self.finished[0]),
            "13": str(self.finished[1]),
        }
        words = [stand_ins.get(w, w) for w in shlex.split(example)]
        # The socket before the subcommand, where every command takes it.
        return [words[0], "--socket", self.sock, *words[1:]]

    def job_file(self, cwd):
        scratch = os.path.join(cwd, "scratch")
        os.makedirs(scratch, exist_ok=True)
        path = os.path.join(cwd, "jobs.toml")
        with open(path, "w") as f:
            f.write(job_toml(os.path.join(scratch, "data.bin"), [scratch], file_size=1 << 22))
        return path

    def test_every_subcommand_has_an_example(self):
        paths = every_subcommand()
        for expected in [("status",), ("stop",), ("test", "run"), ("check-config",), ("run-job",), ("report",),
                         ("compare",)]:
            self.assertIn(expected, paths)
        for path in paths:
            r, lines = example_of(path)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(len(lines), 1, f"{' '.join(path)} --help has no one Example: line:\n{r.stdout}")

    def test_every_example_runs(self):
        # pause and resume act on a run in progress, stop ends it: in that order.
        order = {"pause": 1, "resume": 2, "stop": 3}
        paths = sorted(every_subcommand(), key=lambda p: order.get(p[0], 0))
        in_progress = None
        for path in paths:
            _, lines = example_of(path)
            if not lines:
                continue  # the test above names it
            example = lines[0][len("Example: "):]
            with self.subTest(example=example):
                if path[0] in order and in_progress is None:
                    in_progress = self.long_run()
                cwd = tempfile.mkdtemp(dir=self.dir)
                argv = self.argv(example, cwd, in_progress if path[0] in order else None)
                r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)
                if path == ("run-job",) and r.returncode == 1 and "io_uring" in r.stderr:
                    continue  # documented: 1 when the job cannot start (no io_uring here)
                self.assertEqual(r.returncode, 0, f"{shlex.join(argv)}\n{r.stdout}{r.stderr}")


if __name__ == "__main__":
    unittest.main()
