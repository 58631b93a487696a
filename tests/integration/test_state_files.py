"""The files the daemon keeps in its state directory, handled as an operator
or a full disk would have them: a simulated drive's state file truncated
while the daemon runs, or planted as a hard link to a file elsewhere;
temporaries left by writes a kill cut short; a telemetry capture that keeps
failing; a state directory on a nearly full file system. The daemon keeps
running, every drive keeps being polled, nothing is written outside the
state directory, no temporary piles up, and a repeating failure is one log
line, not one per attempt.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, has_series, parse, sim, table, value, wait_for  # noqa: E402

SLOT_FILE_BYTES = 3 * 4096  # header page and two one-page slots: what a fresh state file holds


def polls(m, serial):
    return value(m, "nvmond_collections_total", serial=serial) if has_series(
        m, "nvmond_collections_total", serial=serial) else 0


def counter(m, name):
    return value(m, name) if has_series(m, name) else 0


def set_aside(m):
    return counter(m, "nvmond_state_files_set_aside_total")


def state_file(d, serial):
    return os.path.join(d.dir, "state", f"sim-{serial}.state")


def wait_state_file(d, serial):
    """The path of the drive's state file, once its first save is there."""
    path = state_file(d, serial)
    wait_for(lambda: os.path.exists(path) and os.path.getsize(path) >= SLOT_FILE_BYTES, 20, f"{serial}'s state file")
    return path


def stop(d):
    if d.proc and not d.exited():
        d.stop()


TWO_DRIVES = config(sim("a", "SIM-A", "generic"), sim("b", "SIM-B", "generic"), poll_interval="100ms")


class StateFileTest(unittest.TestCase):
    def test_a_state_file_truncated_while_the_daemon_runs_is_rebuilt_and_every_drive_stays_polled(self):
        d = Daemon(TWO_DRIVES)
        try:
            d.start()
            path = wait_state_file(d, "SIM-A")
            for size in (0, 5000):
                before = d.metrics()
                os.truncate(path, size)
                # With a shared mapping the next save died of SIGBUS here.
                wait_for(lambda: d.exited() or (lambda m: m is not None and set_aside(parse(m)) > set_aside(before) and
                                                polls(parse(m), "SIM-A") >= polls(before, "SIM-A") + 5 and
                                                polls(parse(m), "SIM-B") >= polls(before, "SIM-B") + 5)(d.try_scrape()),
                         20, f"SIM-A's state file rebuilt after a truncation to {size} bytes")
                self.assertFalse(d.exited(), f"nvmond ended ({d.proc.returncode}) after the truncation")
                m = d.metrics()
                self.assertEqual(value(m, "nvme_up", serial="SIM-A"), 1)
                self.assertEqual(value(m, "nvme_up", serial="SIM-B"), 1)
                self.assertEqual(os.path.getsize(path), SLOT_FILE_BYTES)
            self.assertRegex(d.log_text(), r"sim:a: state file \S+sim-SIM-A\.state was truncated or extended to 0 "
                                           r"bytes, not \d+ while the drive ran; rebuilt from the drive's current state")
            self.assertEqual(d.stop(), 0, d.log_text())
        finally:
            stop(d)

    def test_a_state_file_planted_as_a_hard_link_is_set_aside_and_the_file_outside_keeps_its_bytes(self):
        # A valid state file of the same drive, made by a daemon elsewhere.
        first = Daemon(TWO_DRIVES)
        try:
            first.start()
            made = wait_state_file(first, "SIM-A")
            first.stop()
        finally:
            stop(first)
        outside = tempfile.mkdtemp(prefix="nvmond-outside-")
        victim = os.path.join(outside, "valid-slot-file")
        shutil.copyfile(made, victim)
        with open(victim, "rb") as f:
            victim_bytes = f.read()

        d = Daemon(TWO_DRIVES)
        try:
            os.makedirs(os.path.join(d.dir, "state"))
            os.link(victim, state_file(d, "SIM-A"))
            d.start()
            m = d.wait_metric(lambda m: polls(m, "SIM-A") >= 10, 20, "ten polls of SIM-A")
            d.stop()
            with open(victim, "rb") as f:
                self.assertEqual(f.read(), victim_bytes, "the file outside the state directory was written")
            self.assertEqual(set_aside(m), 1)
            log = d.log_text()
            self.assertRegex(log, r"sim:a: \S+sim-SIM-A\.state: open: 2 links to the file, not 1; set aside as "
                                  r"\S+sim-SIM-A\.state\.aside-\d{8}T\d{6}Z, starting the drive fresh")
            self.assertNotRegex(log, r"sim:a: state restored from")
        finally:
            stop(d)
        self.assertEqual(os.stat(victim).st_nlink, 2, "the link was moved aside, not deleted")
        self.assertEqual(os.stat(state_file(d, "SIM-A")).st_nlink, 1)
        shutil.rmtree(outside)

    def test_temporaries_left_by_writes_cut_short_are_removed_at_start_and_counted(self):
        d = Daemon(TWO_DRIVES)
        state = os.path.join(d.dir, "state")
        planted = [os.path.join(state, ".sim-SIM-A.state.tmp"),
                   os.path.join(state, "telemetry", "SIM-A", ".20260101T000000Z-gen001-area3.bin.tmp"),
                   os.path.join(state, "runs", "soak-1", ".run.json.tmp")]
        kept = [os.path.join(state, "runs", "soak-1", "run.json"), os.path.join(state, "notes.tmp")]
        an_hour_ago = time.time() - 3600
        for p in planted + kept:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write("cut short")
            os.utime(p, (an_hour_ago, an_hour_ago))
        try:
            d.start()
            m = d.metrics()
            d.stop()
        finally:
            stop(d)
        for p in planted:
            self.assertFalse(os.path.exists(p), p)
        for p in kept:
            self.assertTrue(os.path.exists(p), p)
        self.assertEqual(counter(m, "nvmond_stale_temporaries_removed_total"), 3)
        self.assertRegex(d.log_text(), r"removed 3 temporary file\(s\) left by writes cut short")


TELEMETRY_SERIAL = "SIM-TEL"


def telemetry_config(poll_interval, **keys):
    """A drive with new telemetry every 10 minutes of its power-on time, on a
    clock 1200 times as fast as real time, captures at most once per second."""
    return config(table("[clock]", mode="accelerated", factor=1200),
                  table("[telemetry]", min_interval="1s", data_area=3, **keys),
                  sim("tel", TELEMETRY_SERIAL, "generic", telemetry_interval="10m"),
                  sim("other", "SIM-OTHER", "generic"),
                  poll_interval=poll_interval, command_timeout="2s")


def captures(m, result):
    return value(m, "nvmond_telemetry_captures_total", serial=TELEMETRY_SERIAL, result=result) if has_series(
        m, "nvmond_telemetry_captures_total", serial=TELEMETRY_SERIAL, result=result) else 0


FAILED_LINE = re.compile(rf"drive {TELEMETRY_SERIAL} at sim:tel: saving controller-initiated telemetry failed")


class TelemetryFailureTest(unittest.TestCase):
    def test_a_capture_that_fails_every_attempt_is_logged_once_and_counted_every_time(self):
        d = Daemon(telemetry_config("1m"))
        try:
            os.makedirs(os.path.join(d.dir, "state", "telemetry"))
            os.mkfifo(os.path.join(d.dir, "state", "telemetry", TELEMETRY_SERIAL))
            d.start()
            d.wait_metric(lambda m: captures(m, "failed") >= 20, 60, "twenty failed captures")
            self.assertFalse(d.exited())
            d.stop()
        finally:
            stop(d)
        lines = FAILED_LINE.findall(d.log_text())
        self.assertEqual(len(lines), 1, f"{len(lines)} lines for one failure that repeats")

    def test_a_nearly_full_state_dir_keeps_no_temporaries_and_history_goes_on_once_space_returns(self):
        if os.geteuid() != 0:
            self.skipTest("mounting a tmpfs needs root")
        # A poll every 0.5 s: the history's few KB a minute fit the tmpfs.
        d = Daemon(telemetry_config("10m", max_bytes_per_drive="1MiB"))
        mount = os.path.join(d.dir, "state")  # the log and the config stay outside it
        os.makedirs(mount)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount], capture_output=True)
        if r.returncode != 0:
            self.skipTest(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
        try:
            d.start()
            # Room for the history's few pages, not for a 128 KiB capture.
            d.wait_metric(lambda m: captures(m, "saved") >= 1, 60, "a first capture saved")
            filler = os.path.join(mount, "filler")
            st = os.statvfs(mount)
            left = max(0, st.f_bavail * st.f_frsize - 100 * 1024)
            with open(filler, "wb") as f:
                try:
                    while left > 0:
                        left -= f.write(b"\0" * min(left, 1 << 20))
                except OSError:  # ENOSPC: full already, which is the point
                    pass
            before = d.metrics()
            d.wait_metric(lambda m: captures(m, "failed") >= captures(before, "failed") + 20, 60,
                          "twenty captures failing on the full file system")
            temporaries = [os.path.join(root, n) for root, _, names in os.walk(mount)
                           for n in names if n.endswith(".tmp")]
            self.assertEqual(temporaries, [], "temporaries left by failed writes")
            self.assertFalse(d.exited(), d.log_text())
            os.unlink(filler)
            full = d.metrics()
            d.wait_metric(lambda m: captures(m, "saved") > captures(full, "saved") and
                          value(m, "nvmond_store_commits_total") >= value(full, "nvmond_store_commits_total") + 5,
                          60, "captures saved and the history written once space returned")
            d.stop()
        finally:
            stop(d)
            subprocess.run(["umount", mount], check=False)


if __name__ == "__main__":
    unittest.main()
