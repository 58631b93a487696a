"""The control socket against clients that hold it open
and a stored round nvmonctl could not print: one group member's
idle connections leave root and the other members answered, the server itself
closes a connection that sends no whole line within its timeout, and `nvmonctl
show` of a round whose IOPS is ±inf prints the run instead of aborting."""
import json
import os
import select
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, nvmonctl, sim, table, wait_for  # noqa: E402

REQUEST_TIMEOUT_S = 5  # kControlRequestTimeout (daemon/control/control_server.hpp)
GROUP = "nogroup"

# Run as a group member: opens N connections, sends nothing, says so, and
# holds them until its stdin closes.
HOLDER = r"""
import socket, sys
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    held.append(s)
print("holding", flush=True)
sys.stdin.read()
"""


def as_member(uid):
    """setpriv prefix: uid `uid` whose only group is the control group."""
    return ("setpriv", f"--reuid={uid}", f"--regid={GROUP}", "--clear-groups")


def read_until_closed(s, limit_s):
    """Everything the server sends until it closes, and how long that took;
    fails (socket.timeout) if it is still open after limit_s."""
    s.settimeout(limit_s)
    t0 = time.monotonic()
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data, time.monotonic() - t0
        data += chunk


class HeldConnections(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # World-traversable, so the members meet only the socket's own mode.
        cls.dir = tempfile.mkdtemp(prefix="nvmond-hostile-")
        os.chmod(cls.dir, 0o755)
        cls.sock = os.path.join(cls.dir, "control.sock")
        text = config(table("[control]", socket=cls.sock, group=GROUP), sim("a", "SIM-A", "consumer"),
                      poll_interval="1s")
        cls.d = Daemon(text, workdir=cls.dir).start()
        wait_for(lambda: os.path.exists(cls.sock), 10, "the control socket")

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def test_seventy_idle_connections_of_one_member_leave_root_and_another_member_answered(self):
        holder = subprocess.Popen([*as_member(60001), sys.executable, "-c", HOLDER, self.sock, "70"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            ready, _, _ = select.select([holder.stdout], [], [], 30)
            self.assertTrue(ready, "the holder did not connect within 30 s")
            self.assertEqual(holder.stdout.readline().strip(), "holding")
            held_since = time.monotonic()
            root = nvmonctl("--socket", self.sock, "status", timeout=20)
            member = nvmonctl("--socket", self.sock, "status", timeout=20, prefix=as_member(60002))
            # Past the timeout the held connections would be gone anyway and
            # these answers would prove nothing.
            self.assertLess(time.monotonic() - held_since, REQUEST_TIMEOUT_S - 1,
                            "too slow to tell: the held connections may have timed out")
            self.assertEqual(root.returncode, 0, root.stdout + root.stderr)
            self.assertIn("no run in progress", root.stdout)
            self.assertEqual(member.returncode, 0, member.stdout + member.stderr)
        finally:
            holder.stdin.close()
            holder.wait(10)

    def test_a_connection_that_sends_nothing_is_closed_by_the_server_after_its_timeout(self):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(self.sock)
            data, took = read_until_closed(s, REQUEST_TIMEOUT_S + 25)
        self.assertIn(b"no complete request line within 5 s", data)
        self.assertGreater(took, REQUEST_TIMEOUT_S - 1)

    def test_a_half_sent_request_is_closed_too(self):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(self.sock)
            s.sendall(b'{"cmd":"sta')
            data, _ = read_until_closed(s, REQUEST_TIMEOUT_S + 25)
        self.assertIn(b"no complete request line", data)
        self.assertEqual(nvmonctl("--socket", self.sock, "status").returncode, 0)


class SocketFromTheConfig(unittest.TestCase):
    def test_a_socket_whose_directory_is_gone_is_unreachable_not_a_config_error(self):
        workdir = tempfile.mkdtemp(prefix="nvmond-ctlcfg-")
        sock = os.path.join(workdir, "gone", "control.sock")
        path = os.path.join(workdir, "nvmond.toml")
        with open(path, "w") as f:
            f.write(table("[control]", socket=sock) + sim("a", "SIM-A", "consumer"))
        r = nvmonctl("--config", path, "status", timeout=20)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn(sock, r.stderr)


class NonFiniteRound(unittest.TestCase):
    """A round's IOPS of ±inf in the store (SQLite keeps infinities in REAL
    columns): the daemon sends it as null, nvmonctl prints "-"."""

    def test_show_prints_a_run_whose_rounds_are_infinite(self):
        workdir = tempfile.mkdtemp(prefix="nvmond-inf-")
        sock = os.path.join(workdir, "control.sock")
        d = Daemon(config(table("[control]", socket=sock), sim("a", "SIM-A", "consumer"), poll_interval="1s"),
                   workdir=workdir).start()
        d.stop()  # the store now has its schema
        with sqlite3.connect(os.path.join(workdir, "state", "runs.db")) as db:
            db.execute("INSERT INTO pts_runs(id, name, test, target, serial, model, status, started_ns,"
                       " ended_ns, header) VALUES (7, 'hostile', 'wsat', 'sim:a', 'SIM-A', 'm', 'completed',"
                       " 1764000000000000000, 1764000180000000000, '{}')")
            # Each round's data the least the run model's round codec reads.
            db.executemany("INSERT INTO pts_rounds(run_id, idx, phase, iops, data) VALUES (7, ?, 'test', ?,"
                           " json_object('index', ?1, 'started_ns', 0))",
                           [(0, float("inf")), (1, float("-inf")), (2, 1234.4)])
        db.close()
        d.start()
        try:
            wait_for(lambda: os.path.exists(sock), 10, "the control socket")
            human = nvmonctl("--socket", sock, "show", "7", timeout=20)
            raw = nvmonctl("--socket", sock, "--json", "show", "7", timeout=20)
        finally:
            d.stop()
        self.assertEqual(human.returncode, 0, human.stdout + human.stderr)
        rows = [line.split() for line in human.stdout.splitlines()[3:]]
        # Rounds as a person counts them, from 1 (the store's indices are from 0).
        self.assertEqual(rows, [["1", "test", "-"], ["2", "test", "-"], ["3", "test", "1234"]])
        self.assertEqual(raw.returncode, 0, raw.stderr)
        self.assertEqual([r["iops"] for r in json.loads(raw.stdout)["rounds"]], [None, None, 1234.4])


if __name__ == "__main__":
    unittest.main()
