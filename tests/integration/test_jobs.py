"""`nvmonctl run-job`: the built binary runs real io_uring jobs and prints one
JSON summary per job; what it says it wrote is checked against the target's
bytes. Targets: a file in an allowed directory, and a loop device over a file
in an allowed directory (the safety guard judges a loop device by the file
behind it). Refusals exit 1 and name the reason, before any write."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import nvmonctl  # noqa: E402

MIB = 1 << 20


def job_toml(target, allow_dirs, *, bytes_=MIB, bs="4KiB", pattern="sequential", qd=4,
             file_size=None, allow_serials=()):
    lines = [
        "[[job]]",
        'name = "it"',
        f'target = "{target}"',
        f'pattern = "{pattern}"',
        f'bs = "{bs}"',
        "read_pct = 0",
        f"queue_depth = {qd}",
        f"bytes = {bytes_}",
    ]
    if file_size:
        lines.append(f"file_size = {file_size}")
    lines += ["", "[safety]",
              "allow_dirs = [" + ", ".join(f'"{d}"' for d in allow_dirs) + "]",
              "allow_serials = [" + ", ".join(f'"{s}"' for s in allow_serials) + "]"]
    return "\n".join(lines) + "\n"


class RunJobTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nvmonctl-it-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.scratch = os.path.join(self.dir, "scratch")
        os.mkdir(self.scratch)

    def run_job(self, text):
        path = os.path.join(self.dir, "job.toml")
        with open(path, "w") as f:
            f.write(text)
        p = nvmonctl("run-job", path, timeout=120)
        summaries = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        return p, summaries

    def assert_written(self, summary, path, nbytes):
        """The summary's totals, and the target's first `nbytes` carry the job's
        (random, so non-zero) data while the rest stays zero."""
        self.assertNotIn("failure", summary)
        self.assertEqual(summary["write"]["bytes"], nbytes)
        self.assertEqual(summary["write"]["ops"], nbytes // 4096)
        self.assertEqual(summary["write"]["errors"], 0)
        self.assertEqual(summary["read"]["bytes"], 0)
        self.assertEqual(sum(s["write_bytes"] for s in summary["timeline"]), nbytes)
        with open(path, "rb") as f:
            head = f.read(nbytes)
            tail = f.read(MIB)
        zero_blocks = sum(1 for i in range(0, nbytes, 4096) if head[i:i + 4096] == bytes(4096))
        self.assertEqual(zero_blocks, 0, "blocks the job says it wrote are still zero")
        self.assertEqual(tail, bytes(len(tail)), "the job wrote past its byte budget")

    def test_file_in_allowed_dir(self):
        target = os.path.join(self.scratch, "data.bin")
        p, out = self.run_job(job_toml(target, [self.scratch], file_size=4 * MIB))
        if p.returncode == 1 and "io_uring" in p.stderr:
            self.skipTest(f"io_uring unavailable: {p.stderr.strip()}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(out), 1)
        self.assertEqual(out[0]["engine"], "io_uring")
        self.assertEqual(os.path.getsize(target), 4 * MIB)
        self.assert_written(out[0], target, MIB)

    def test_loop_device_judged_by_its_backing_file(self):
        if os.geteuid() != 0 or not shutil.which("losetup"):
            self.skipTest("needs root and losetup for a loop device")
        backing = os.path.join(self.scratch, "loop.img")
        with open(backing, "wb") as f:
            f.truncate(8 * MIB)
        p = subprocess.run(["losetup", "--find", "--show", backing], capture_output=True, text=True)
        if p.returncode != 0:
            self.skipTest(f"losetup failed: {p.stderr.strip()}")
        loop = p.stdout.strip()
        detached = False

        def detach():
            if not detached:
                subprocess.run(["losetup", "-d", loop], check=False)
        self.addCleanup(detach)

        # Allowed: the file behind the loop device lies in allow_dirs
        # (allow_serials cannot name a loop device).
        p, out = self.run_job(job_toml(loop, [self.scratch], bytes_=2 * MIB))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(out[0]["target"], loop)
        # Refused: the same device when only another directory is allowed.
        other = os.path.join(self.dir, "other")
        os.mkdir(other)
        p2, out2 = self.run_job(job_toml(loop, [other], bytes_=2 * MIB, allow_serials=["X"]))
        subprocess.run(["losetup", "-d", loop], check=True)
        detached = True
        self.assert_written(out[0], backing, 2 * MIB)
        self.assertEqual(p2.returncode, 1, p2.stdout + p2.stderr)
        self.assertEqual(out2[0]["failure"]["reason"], "outside_allowed_dirs")
        self.assertIn("loop device over", p2.stderr)

    def test_target_outside_allowed_dirs_is_refused_before_any_write(self):
        target = os.path.join(self.dir, "not-allowed.bin")
        p, out = self.run_job(job_toml(target, [self.scratch], file_size=4 * MIB))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(out[0]["failure"]["reason"], "outside_allowed_dirs")
        self.assertIn("outside [safety] allow_dirs", p.stderr)
        self.assertIn(target, p.stderr)
        self.assertFalse(os.path.exists(target), "a refused job created its target")

    def test_invalid_job_file_exits_2_with_position(self):
        p, out = self.run_job(job_toml(os.path.join(self.scratch, "f"), [self.scratch])
                              .replace("queue_depth", "queue_dept"))
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(out, [])
        self.assertRegex(p.stderr, r"job\.toml:7:1: .*queue_dept")


if __name__ == "__main__":
    unittest.main()
