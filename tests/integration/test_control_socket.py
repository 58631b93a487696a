"""nvmonctl talks to the running daemon only through its control socket:
status shows the simulated drive's health, the socket is 0660 and refuses
other users (by file mode, and by peer credentials when the mode is opened
up), and garbage, oversized or malformed requests get error replies while
the daemon keeps answering."""
import json
import os
import socket
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, nvmonctl, sim, table, wait_for  # noqa: E402

CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    sim("consumer", "SIM-CONSUMER", "consumer"),
    poll_interval="1s")


def ctl(*args, as_nobody=False):
    nobody = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")
    return nvmonctl(*args, prefix=nobody if as_nobody else ())


def raw_request(path, payload):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        try:
            s.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the daemon answered and closed before taking everything
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return json.loads(data.decode())


class ControlSocket(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # World-traversable, so another user meets the socket's own mode.
        cls.dir = tempfile.mkdtemp(prefix="nvmond-ctl-")
        os.chmod(cls.dir, 0o755)
        cls.sock = os.path.join(cls.dir, "control.sock")
        cls.d = Daemon(CONFIG.replace("@SOCKET@", cls.sock), workdir=cls.dir).start()
        wait_for(lambda: os.path.exists(cls.sock), 10, "the control socket")

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def status_json(self):
        r = ctl("--socket", self.sock, "--json", "status")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_status_shows_the_drive_with_its_temperature_and_warning_threshold(self):
        st = wait_for(lambda: (lambda s: s if any(d["serial"] == "SIM-CONSUMER" and d["composite_c"] is not None
                                                  for d in s["drives"]) else None)(self.status_json()),
                      20, "the drive in status")
        drive = next(d for d in st["drives"] if d["serial"] == "SIM-CONSUMER")
        self.assertTrue(drive["up"])
        self.assertIsNotNone(drive["warning_c"])
        human = ctl("--socket", self.sock, "status")
        self.assertEqual(human.returncode, 0, human.stderr)
        self.assertIn("SIM-CONSUMER", human.stdout)
        self.assertIn("no run in progress", human.stdout)

    def test_socket_path_comes_from_the_config(self):
        r = ctl("--config", self.d.config, "list")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_global_options_are_taken_before_or_after_the_subcommand(self):
        before = ctl("--socket", self.sock, "--json", "list")
        after = ctl("list", "--json", "--socket", self.sock)
        self.assertEqual(after.returncode, 0, after.stderr)
        self.assertEqual(json.loads(after.stdout), json.loads(before.stdout))
        status = ctl("status", "--socket", self.sock, "--json")
        self.assertEqual(status.returncode, 0, status.stderr)
        self.assertEqual(json.loads(status.stdout).keys(), self.status_json().keys())
        self.assertEqual(ctl("list", "--config", self.d.config).returncode, 0)

    def test_socket_is_0660(self):
        self.assertEqual(stat.S_IMODE(os.stat(self.sock).st_mode), 0o660)

    def test_another_user_gets_permission_denied(self):
        r = ctl("--socket", self.sock, "status", as_nobody=True)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("permission denied", r.stderr)

    def test_peer_credentials_refuse_another_user_even_through_an_open_mode(self):
        os.chmod(self.sock, 0o666)
        try:
            r = ctl("--socket", self.sock, "status", as_nobody=True)
            # what a script reads: the reason, not the sentence
            scripted = ctl("--socket", self.sock, "--json", "status", as_nobody=True)
        finally:
            os.chmod(self.sock, 0o660)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("permission denied", r.stderr)
        self.assertEqual(scripted.returncode, 3, scripted.stdout + scripted.stderr)
        self.assertEqual(json.loads(scripted.stdout)["reason"], "permission_denied")

    def test_one_megabyte_of_garbage_gets_an_error_and_status_still_answers(self):
        reply = raw_request(self.sock, os.urandom(1 << 20).replace(b"\n", b"x"))
        self.assertFalse(reply["ok"])
        self.assertIn("larger than 65536", reply["error"])
        self.status_json()

    def test_malformed_and_unknown_requests_get_error_replies(self):
        self.assertIn("not JSON", raw_request(self.sock, b"{nope\n")["error"])
        self.assertIn("cmd", raw_request(self.sock, b"[1,2]\n")["error"])
        self.assertIn("unknown command", raw_request(self.sock, b'{"cmd":"format-everything"}\n')["error"])
        self.assertIn("run", raw_request(self.sock, b'{"cmd":"stop","run":"x"}\n')["error"])
        self.status_json()

    def test_start_with_an_unknown_parameter_is_refused_with_its_name(self):
        r = ctl("--socket", self.sock, "start", "wsat", "--target", "sim:consumer", "--set", "roundz=3")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("roundz", r.stderr)

    def test_stop_pause_and_resume_need_a_run_id_or_all(self):
        for cmd in ("stop", "pause", "resume"):
            r = ctl("--socket", self.sock, cmd)
            self.assertEqual(r.returncode, 2, f"{cmd}: {r.stdout}{r.stderr}")
            self.assertIn("--all", r.stderr)
            self.assertIn("--all", ctl(cmd, "--help").stdout)
            # With --all and nothing in progress, the daemon says so.
            r = ctl("--socket", self.sock, cmd, "--all")
            self.assertEqual(r.returncode, 1, f"{cmd} --all: {r.stdout}{r.stderr}")
            self.assertIn("no run in progress", r.stderr)
        self.assertEqual(ctl("--socket", self.sock, "stop", "3", "--all").returncode, 2)

    def test_a_missing_socket_says_which_one_and_how_to_name_another(self):
        absent = os.path.join(self.dir, "absent.sock")
        r = ctl("--socket", absent, "status")
        self.assertEqual(r.returncode, 3)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertTrue(r.stderr.startswith(f"nvmonctl: cannot reach nvmond at {absent}: "), r.stderr)
        for hint in ("is nvmond running", "--socket", "--config"):
            self.assertIn(hint, r.stderr)

    def test_permission_denied_names_the_control_group(self):
        r = ctl("--socket", self.sock, "status", as_nobody=True)
        self.assertIn("[control] group", r.stderr)

    def test_an_unknown_run_id_says_where_the_ids_are(self):
        for args, where in ((("stop", "999"), "nvmonctl status"), (("pause", "999"), "nvmonctl status"),
                            (("show", "999"), "nvmonctl history")):
            r = ctl("--socket", self.sock, *args)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn("999", r.stderr)
            self.assertIn(where, r.stderr)

    def test_an_unknown_test_lists_the_known_ones(self):
        r = ctl("--socket", self.sock, "start", "wsatt", "--target", "sim:consumer")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("unknown test \"wsatt\"", r.stderr)
        self.assertIn("wsat", r.stderr.split("known", 1)[-1])

    def test_usage_errors_exit_2_and_a_missing_daemon_3(self):
        self.assertEqual(ctl("--socket", self.sock, "start").returncode, 2)
        # Without --target the name is a [[soak]]'s: none here is named so.
        r = ctl("--socket", self.sock, "start", "wsat")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('no [[soak]] named "wsat"', r.stderr)
        r = ctl("--socket", os.path.join(self.dir, "absent.sock"), "status")
        self.assertEqual(r.returncode, 3)


if __name__ == "__main__":
    unittest.main()
