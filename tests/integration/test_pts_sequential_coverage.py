"""Workload-independent preconditioning writes the whole active range, on a
sparse file and on a loop device over a sparse file: the rounds it is cut
into go on where the one before ended, and so does a run killed with kill -9
and resumed. Which bytes were written is read back from the file itself
(SEEK_DATA/SEEK_HOLE), not from the run's own account of it.

One pass (wipc_multiple=1) in short rounds: a round that started again at
the range's start, or a resume that did, leaves the end of the range a hole;
with several threads, so does a thread that another's speed robbed of its
share of the budget."""
import errno
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

NVMONCTL = os.environ["NVMONCTL"]
MiB = 1 << 20
SIZE = 256 * MiB
# Short rounds make many of them (a few MiB to tens of MiB each), so a
# round-long pass cannot cover the range by itself and a kill lands mid-stage.
SETS = ["round=10ms", "wipc_multiple=1"]


def holes_by_mib(path, size):
    """The 1 MiB units of [0, size) that hold no data at all."""
    fd = os.open(path, os.O_RDONLY)
    try:
        with_data = set()
        off = 0
        while off < size:
            try:
                start = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:  # ENXIO: no data after off
                break
            end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
            with_data.update(range(start // MiB, (end + MiB - 1) // MiB))
            off = end
    finally:
        os.close(fd)
    return [u for u in range(size // MiB) if u not in with_data]


class Coverage:
    """A target (self.target) backed by a sparse file (self.backing)."""
    longMessage = False  # the message names the holes; the whole list is noise

    def make_dir(self, base=None):
        self.dir = tempfile.mkdtemp(prefix="pts-seq-", dir=base)
        self.backing = os.path.join(self.dir, "disk.img")
        with open(self.backing, "wb") as f:
            f.truncate(SIZE)
        self.config = os.path.join(self.dir, "nvmond.toml")
        with open(self.config, "w") as f:
            f.write(f'[safety]\nallow_dirs = ["{self.dir}"]\n')
        self.out = os.path.join(self.dir, "out")

    sets = SETS

    def command(self):
        args = [NVMONCTL, "test", "run", "precondition", "--target", self.target, "--config", self.config,
                "--out", self.out]
        for s in self.sets:
            args += ["--set", s]
        return args

    def run_json(self):
        with open(os.path.join(self.out, "run.json")) as f:
            return json.load(f)

    def assert_every_mib_written(self):
        missing = holes_by_mib(self.backing, SIZE)
        self.assertFalse(missing, f"{len(missing)} of {SIZE // MiB} MiB never written "
                         f"(first {missing[:1]}, last {missing[-1:]})")

    def run_to_completion(self):
        r = subprocess.run(self.command(), capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        run = self.run_json()
        self.assertEqual(run["status"], "completed")
        return run

    def wait_released(self):
        """A process killed with I/O in flight leaves its io_uring to the
        kernel, which tears it down asynchronously: until then a block device
        stays claimed and nvmond rightly refuses it as in use. The resume is
        tested once the kernel has let go (a condition, with a deadline)."""
        if not self.target.startswith("/dev/"):
            return
        deadline = time.monotonic() + 10
        while True:
            try:
                os.close(os.open(self.target, os.O_RDONLY | os.O_EXCL))
                return
            except OSError as e:
                if e.errno != errno.EBUSY or time.monotonic() > deadline:
                    raise
            time.sleep(0.01)

    def test_preconditioning_writes_every_mib_of_the_range(self):
        run = self.run_to_completion()
        rounds = [r for r in run["rounds"] if r["phase"] == "precondition"]
        self.assertGreater(len(rounds), 2, "too few rounds to show that a round goes on from the last")
        self.assertGreaterEqual(sum(r["bytes_written"] for r in rounds), SIZE)
        self.assert_every_mib_written()

    def test_a_run_killed_mid_preconditioning_resumes_where_its_last_round_ended(self):
        # Piped, nvmonctl prints a line per round once that round is committed:
        # kill -9 after the third, long before the pass is done.
        p = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            lines = 0
            for line in p.stdout:
                if "precondition" in line:
                    lines += 1
                if lines == 3:
                    break
            p.send_signal(signal.SIGKILL)
        finally:
            p.wait(timeout=30)
            p.stdout.close()
        self.assertEqual(lines, 3, "the run ended before its third round")
        self.assertEqual(p.returncode, -signal.SIGKILL)
        self.assertFalse(os.path.exists(os.path.join(self.out, "run.json")), "the run finished before the kill")
        self.wait_released()
        run = self.run_to_completion()
        self.assertEqual(run["resumed"], 1)
        self.assert_every_mib_written()


class SparseFileTest(Coverage, unittest.TestCase):
    def setUp(self):
        self.make_dir()
        self.target = self.backing

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class FourThreadsSparseFileTest(SparseFileTest):
    """wipc_threads=4: each thread sweeps its own quarter of the range at its
    own pace. A budget shared by the four let the fast ones spend a slow
    one's share (97.9 % written, one 32 MiB hole); each has its own now, also
    across a resume, and every MiB is written."""
    sets = SETS + ["wipc_threads=4"]


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("losetup"), "needs root and losetup")
class LoopDeviceTest(Coverage, unittest.TestCase):
    def setUp(self):
        # tmpfs: the loop device's writes land in the backing file's pages,
        # which SEEK_DATA sees without a flush.
        self.make_dir("/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.target = subprocess.run(["losetup", "--find", "--show", self.backing], check=True,
                                     capture_output=True, text=True).stdout.strip()

    def tearDown(self):
        subprocess.run(["losetup", "-d", self.target])
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
