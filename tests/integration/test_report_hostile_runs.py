"""`nvmonctl report` and `compare` on run files a hostile or careless
operator leaves: each is refused with exit 2 and a message
naming the file (and the field), without reading a device, waiting on a FIFO,
or aborting. Every call has a timeout, so a hang fails the test."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMONCTL, SOURCE_DIR  # noqa: E402

MINIMAL = os.path.join(SOURCE_DIR, "tests", "fixtures", "runs", "minimal", "run.json")


def report(*runs, timeout=20):
    cmd = [NVMONCTL, "report", *runs] if len(runs) == 1 else [NVMONCTL, "compare", *runs]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


class HostileRunFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nvmond-hostile-run-")
        self.addCleanup(shutil.rmtree, self.dir)
        with open(MINIMAL) as f:
            self.minimal = json.load(f)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def assertRefused(self, r, *fragments):
        self.assertEqual(r.returncode, 2, f"rc {r.returncode}: {r.stdout}{r.stderr}")
        for fragment in fragments:
            self.assertIn(fragment, r.stderr)

    def test_an_iops_of_1e999_is_named_by_file_and_field(self):
        text = json.dumps(self.minimal).replace('"rounds": []', '"rounds": [{"index": 0, "iops": 1e999}]')
        path = self.write("run.json", text)
        self.assertRefused(report(path), path + ": rounds[0].iops: 1e999 is not a finite number (line 1, column")

    def test_infinity_and_nan_literals_are_named_by_field(self):
        for literal in ("Infinity", "-inf", "NaN", "nan"):
            with self.subTest(literal=literal):
                rounds = f'"rounds": [{{"index": 0, "iops": {literal}}}]'
                text = json.dumps(self.minimal).replace('"rounds": []', rounds)
                path = self.write("run.json", text)
                self.assertRefused(report(path), path + f": rounds[0].iops: {literal} is not a finite number")

    def test_a_symlink_to_dev_zero_is_refused_without_reading(self):
        os.symlink("/dev/zero", os.path.join(self.dir, "run.json"))
        self.assertRefused(report(self.dir), os.path.join(self.dir, "run.json") + ": is a symbolic link")

    def test_a_device_named_directly_is_refused(self):
        self.assertRefused(report("/dev/zero"), "/dev/zero: is a character device, not a regular file")

    def test_a_fifo_is_refused_without_waiting_for_a_writer(self):
        fifo = os.path.join(self.dir, "run.json")
        os.mkfifo(fifo)
        self.assertRefused(report(self.dir), fifo + ": is a FIFO, not a regular file")
        self.assertRefused(report(fifo, MINIMAL), fifo + ": is a FIFO")

    def test_an_empty_object_is_not_a_run(self):
        path = self.write("run.json", "{}")
        self.assertRefused(report(path),
                           path + ": not a run (schema nvmond.run/1): missing schema, test, status, started_at")

    def test_the_minimal_run_is_still_a_run(self):
        r = report(MINIMAL)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
