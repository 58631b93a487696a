"""`nvmonctl test run` on a terminal shows one progress line rewritten in
place (carriage return, erase to the end of the line) and ends it before its
summary; piped, it prints a plain line per round. The terminal is a pty."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMONCTL, nvmonctl  # noqa: E402

ROUNDS = 8
ARGS = ("test", "run", "wsat", "--target", "sim:datacenter", "--set", f"rounds={ROUNDS}", "--set", "round=1m")


def on_a_terminal(*args):
    """Runs nvmonctl with its stdout on a pty: (exit code, what it wrote)."""
    leader, follower = os.openpty()
    p = subprocess.Popen([NVMONCTL, *args], stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the last writer closed the pty
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    p.wait(timeout=120)
    return p.returncode, out.decode(errors="replace")


class Progress(unittest.TestCase):
    def test_on_a_terminal_one_line_is_rewritten_in_place(self):
        rc, out = on_a_terminal(*ARGS, "--out", tempfile.mkdtemp(prefix="progress-tty-"))
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.count("\r\x1b[K"), 0, "a line erased before it was written")
        self.assertEqual(out.count("\x1b[K"), ROUNDS, out)
        # The pty turns each "\n" into "\r\n": the progress line and the summary.
        self.assertEqual(out.count("\n"), 2, out)
        self.assertIn("ETA", out)

    def test_piped_each_round_is_a_line(self):
        r = nvmonctl(*ARGS, "--out", tempfile.mkdtemp(prefix="progress-pipe-"), timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("\r", r.stdout)
        self.assertNotIn("\x1b", r.stdout)
        rounds = [l for l in r.stdout.splitlines() if " round " in l and "ETA" in l]
        self.assertEqual(len(rounds), ROUNDS, r.stdout)
        self.assertTrue(rounds[-1].endswith("ETA 0:00:00"), rounds[-1])


if __name__ == "__main__":
    unittest.main()
