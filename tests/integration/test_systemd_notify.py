"""Under systemd (Type=notify, WatchdogSec=), nvmond reports READY, a STATUS
line, WATCHDOG keep-alives, RELOADING/READY around SIGHUP and STOPPING on
SIGTERM. The test plays systemd's side of $NOTIFY_SOCKET."""
import os
import signal
import socket
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon  # noqa: E402

CONFIG = """
[daemon]
listen = "127.0.0.1:@PORT@"
state_dir = "@STATE@"
[[sim]]
name = "a"
serial = "SIM-N"
"""


class NotifyTest(unittest.TestCase):
    def test_ready_status_watchdog_reload_stop(self):
        path = os.path.join(tempfile.mkdtemp(prefix="nvmond-notify-"), "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(10)
        messages = []

        def until(pred, what):
            deadline = time.monotonic() + 10
            while not any(pred(m) for m in messages):
                if time.monotonic() > deadline:
                    self.fail(f"no {what} in {messages}")
                messages.extend(sock.recv(4096).decode().split("\n"))

        d = Daemon(CONFIG).start(env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
        try:
            until(lambda m: m == "READY=1", "READY=1")
            until(lambda m: m.startswith("STATUS=monitoring 1 drive(s)"), "STATUS")
            until(lambda m: m == "WATCHDOG=1", "WATCHDOG=1")
            messages.clear()
            d.signal(signal.SIGHUP)
            until(lambda m: m == "RELOADING=1", "RELOADING=1")
            until(lambda m: m == "READY=1", "READY=1 after reload")
            d.signal(signal.SIGTERM)
            until(lambda m: m == "STOPPING=1", "STOPPING=1")
            self.assertEqual(d.proc.wait(5), 0)
        finally:
            d.stop()
            sock.close()


if __name__ == "__main__":
    unittest.main()
