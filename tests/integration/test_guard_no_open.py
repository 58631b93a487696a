"""A target the safety guard refuses is never opened for reading or writing:
the guard judges an O_PATH descriptor (fstat, sysfs) and only re-opens an
approved object for I/O. Watched with strace on the real binaries, for a PTS
run (`nvmonctl test run wsat --target T`, and `nvmonctl start` through the
daemon, traced while it runs) and for read and write [[job]]s
(`nvmonctl run-job`): every open of /dev/ptmx, /dev/kmsg, /dev/null (a
character device) and of a loop device over a file outside [safety]
allow_dirs is O_PATH, and nothing is re-opened through /proc/self/fd.
Before, strace showed openat(O_RDWR|O_EXCL) on each of them before the
refusal (opening a tty, a watchdog or a tape has effects of its own)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMONCTL, Daemon, config, nvmonctl, sim, table, wait_for  # noqa: E402

CHAR_DEVICES = ["/dev/ptmx", "/dev/kmsg", "/dev/null"]
# 123 openat(AT_FDCWD, "/dev/ptmx", O_RDWR|O_EXCL|O_NONBLOCK|O_CLOEXEC) = 3</dev/pts/ptmx>
# 124 openat(AT_FDCWD, "/dev/kmsg", O_RDONLY <unfinished ...>   (another thread ran meanwhile)
# 125 openat2(4</tmp/d>, "f", {flags=O_RDONLY|O_CLOEXEC|O_PATH, resolve=...}, 24) = 5</tmp/d/f>
OPEN = re.compile(r'\b(?:open|openat|openat2)\((?:[^,"]+, )?"(?P<path>[^"]*)", (?P<flags>[^)<]*)')
OPENED = re.compile(r"= \d+<(?P<path>[^>]*)>\s*$")


def opens(trace_file):
    """(path asked for, flags, path opened or None, line) of every open the trace holds."""
    out = []
    with open(trace_file) as f:
        for line in f:
            m = OPEN.search(line)
            if m:
                got = OPENED.search(line)
                out.append((m["path"], m["flags"], got["path"] if got else None, line.rstrip()))
    return out


@unittest.skipUnless(shutil.which("strace"), "needs strace (scripts/setup installs it)")
class RefusedTargetsAreNeverOpened(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="guard-no-open-")
        self.scratch = os.path.join(self.dir, "scratch")
        os.mkdir(self.scratch)
        self.loop = None
        self.forbidden = {p: {p, os.path.realpath(p)} for p in CHAR_DEVICES if os.path.exists(p)}
        if os.geteuid() == 0 and shutil.which("losetup") and os.path.exists("/dev/loop-control"):
            outside = os.path.join(self.dir, "outside.img")  # not in allow_dirs: the loop device is refused
            with open(outside, "wb") as f:
                f.truncate(16 << 20)
            r = subprocess.run(["losetup", "--find", "--show", outside], capture_output=True, text=True)
            if r.returncode == 0:
                self.loop = r.stdout.strip()
                self.forbidden[self.loop] = {self.loop, os.path.realpath(self.loop)}
        self.config = os.path.join(self.dir, "nvmond.toml")
        with open(self.config, "w") as f:
            f.write(table("[safety]", allow_dirs=[self.scratch]))

    def tearDown(self):
        if self.loop:
            subprocess.run(["losetup", "-d", self.loop])
        shutil.rmtree(self.dir, ignore_errors=True)

    def traced(self, name, *args):
        """Runs nvmonctl ARGS under strace; its opens and its completed process."""
        trace = os.path.join(self.dir, name + ".trace")
        r = subprocess.run(["strace", "-f", "-y", "-qq", "-e", "trace=open,openat,openat2", "-o", trace,
                            NVMONCTL, *args], capture_output=True, text=True, timeout=120)
        self.assertTrue(os.path.exists(trace), r.stderr)
        return opens(trace), r

    def assert_only_o_path(self, target, opened, r):
        names = self.forbidden[target]
        seen = [o for o in opened if o[0] in names]
        self.assertTrue(seen, f"{target} was never looked at:\n{r.stderr}")  # the guard did judge it
        for path, flags, got, line in opened:
            if path in names or got in names:
                self.assertIn("O_PATH", flags, f"{target} opened for I/O before its refusal: {line}")
            self.assertFalse(path.startswith("/proc/self/fd/"), f"a refused target was re-opened: {line}")

    def targets(self):
        return list(self.forbidden)

    def test_a_pts_run_on_a_refused_target_opens_it_only_with_o_path(self):
        self.assertGreaterEqual(len(self.targets()), 3)
        for target in self.targets():
            with self.subTest(target=target):
                out = os.path.join(self.dir, "out-" + os.path.basename(target))
                opened, r = self.traced("wsat-" + os.path.basename(target), "test", "run", "wsat", "--target",
                                        target, "--config", self.config, "--out", out, "--set", "rounds=1",
                                        "--set", "round=1s")
                self.assertNotEqual(r.returncode, 0, f"wsat ran on {target}: {r.stdout}")
                self.assertRegex(r.stderr + r.stdout, r"unsupported_target|outside|allow_dirs|neither")
                self.assert_only_o_path(target, opened, r)

    def test_read_and_write_jobs_on_refused_targets_open_them_only_with_o_path(self):
        for target in self.targets():
            for read_pct in (0, 100):
                # /dev/null is no NVMe namespace: refused for reads as well as for writes.
                if read_pct == 100 and target == self.loop:
                    continue  # a block device may be read: reading it is harmless and allowed
                with self.subTest(target=target, read_pct=read_pct):
                    jobs = os.path.join(self.dir, f"jobs-{read_pct}.toml")
                    with open(jobs, "w") as f:
                        f.write(table("[[job]]", name="probe", target=target, read_pct=read_pct, bs="4KiB",
                                      runtime="1s"))
                        f.write(table("[safety]", allow_dirs=[self.scratch]))
                    opened, r = self.traced(f"job{read_pct}-" + os.path.basename(target), "run-job", jobs)
                    self.assertNotEqual(r.returncode, 0, f"the job ran on {target}: {r.stdout}")
                    self.assert_only_o_path(target, opened, r)


@unittest.skipUnless(shutil.which("strace"), "needs strace (scripts/setup installs it)")
class RefusedTargetsAreNeverOpenedByTheDaemon(unittest.TestCase):
    def test_nvmonctl_start_on_a_refused_target_makes_the_daemon_open_it_only_with_o_path(self):
        d = Daemon("")
        scratch = os.path.join(d.dir, "scratch")
        os.mkdir(scratch)
        sock = os.path.join(d.dir, "control.sock")
        d.write_config(config(table("[control]", socket=sock), table("[safety]", allow_dirs=[scratch]),
                              sim("dc0", "SIM-DC0", "datacenter")))
        d.start()
        trace = os.path.join(d.dir, "daemon.trace")
        strace = None
        try:
            wait_for(lambda: os.path.exists(sock), 10, "the control socket")
            # With -f, -p attaches every thread the daemon has now (the control
            # socket's included) and follows the threads it starts.
            strace = subprocess.Popen(["strace", "-f", "-y", "-e", "trace=open,openat,openat2", "-o", trace,
                                       "-p", str(d.proc.pid)], stderr=subprocess.PIPE, text=True)
            # "Process N attached with T threads", once all are traced.
            self.assertIn("attached", strace.stderr.readline())
            targets = [t for t in CHAR_DEVICES if os.path.exists(t)]
            for target in targets:
                r = nvmonctl("--socket", sock, "start", "wsat", "--target", target, "--set", "rounds=1")
                self.assertNotEqual(r.returncode, 0, f"the daemon started a run on {target}: {r.stdout}")
                self.assertIn("neither a block device nor a regular file", r.stderr + r.stdout)
        finally:
            if strace:
                strace.terminate()  # detaches; the daemon goes on
                strace.wait(10)
                strace.stderr.close()
            d.stop()
        opened = opens(trace)
        for target in targets:
            names = {target, os.path.realpath(target)}
            self.assertTrue([o for o in opened if o[0] in names], f"the daemon never looked at {target}")
            for path, flags, got, line in opened:
                if path in names or got in names:
                    self.assertIn("O_PATH", flags, f"the daemon opened {target} for I/O: {line}")


if __name__ == "__main__":
    unittest.main()
