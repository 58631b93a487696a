"""Tier 2: the shipped unit, as `cmake --install` makes it from
systemd/nvmond.service.in for the package's prefix (/usr), as systemd itself
judges it.

- its paths follow the install prefix (ExecStart= and the rest name the
  nvmond of the prefix installed to);
- `systemd-analyze security --offline=yes` rates it 4.0 or lower ("OK"), and
  docs/operations.md quotes the score it really gets;
- `systemd-analyze verify` is clean with the built nvmond at the path the
  unit names (/usr/sbin/nvmond) and the manual pages its Documentation=
  names, both installed in a private mount namespace so the host is not
  touched (needs root, else skipped);
- what must stay open stays open: the io_uring system calls pass the unit's
  SystemCallFilter (groups expanded by `systemd-analyze syscall-filter`),
  /dev/nvme* is reachable (no PrivateDevices, char-nvme allowed) and the
  safety guard can read /proc/swaps (no ProcSubset=pid).

That the capability set is enough for the admin commands nvmond sends is
shown in the QEMU lab (lab_caps: the guest's nvmond runs with the unit's
CapabilityBoundingSet and still reads SMART); that systemd really starts
nvmond under the whole unit (seccomp, ProtectSystem, io_uring jobs) is
shown by the package test, which boots the installed package under
systemd-nspawn (tests/package/unit_boot.py).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMOND, SOURCE_DIR  # noqa: E402

BUILD_DIR = os.environ.get("NVMOND_BUILD_DIR", os.path.dirname(os.path.abspath(NVMOND)))
DEFAULT_CONFIG = os.path.join(SOURCE_DIR, "systemd", "nvmond.toml")
OPERATIONS = os.path.join(SOURCE_DIR, "docs", "operations.md")
CONFIGURATION = os.path.join(SOURCE_DIR, "docs", "configuration.md")
STAGE = tempfile.mkdtemp(prefix="nvmond-unit-")
MAX_EXPOSURE = 4.0
IO_URING = {"io_uring_setup", "io_uring_enter", "io_uring_register"}


def install_unit(prefix):
    """The unit as `cmake --install --prefix PREFIX` installs it (under a
    DESTDIR of its own), and its path."""
    destdir = tempfile.mkdtemp(dir=STAGE)
    r = subprocess.run(["cmake", "--install", BUILD_DIR, "--component", "unit", "--prefix", prefix],
                       env={**os.environ, "DESTDIR": destdir}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"cmake --install of the unit failed:\n{r.stdout}")
    return os.path.join(destdir, prefix.lstrip("/"), "lib", "systemd", "system", "nvmond.service")


UNIT = install_unit("/usr")


def tearDownModule():
    shutil.rmtree(STAGE, ignore_errors=True)


def analyze(*args):
    return subprocess.run(["systemd-analyze", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120)


def exposure(unit_path):
    """The number on systemd-analyze security's "Overall exposure level" line."""
    r = analyze("security", "--offline=yes", "--no-pager", unit_path)
    m = re.search(r"Overall exposure level for nvmond\.service:\s*([0-9.]+)\s+(\w+)", r.stdout)
    if not m:
        raise AssertionError(f"no overall exposure line in:\n{r.stdout}")
    return float(m.group(1)), m.group(2)


def unit_settings(path):
    """{key: [values in order]} of the unit file (comments and sections dropped)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;[" or "=" not in line:
                continue
            k, v = line.split("=", 1)
            out.setdefault(k.strip(), []).append(v.strip())
    return out


def expand_syscalls(items):
    """Syscall names for a list of names and @groups (nested groups expanded)."""
    out = set()
    for item in items:
        if not item.startswith("@"):
            out.add(item)
            continue
        r = analyze("syscall-filter", "--no-pager", item)
        members = [l.strip() for l in r.stdout.splitlines()[1:]
                   if l.strip() and not l.strip().startswith("#")]
        out |= expand_syscalls(members)
    return out


@unittest.skipUnless(shutil.which("systemd-analyze"), "systemd-analyze is not installed")
class UnitTest(unittest.TestCase):
    def test_security_exposure_is_ok(self):
        score, word = exposure(UNIT)
        self.assertLessEqual(score, MAX_EXPOSURE, f"exposure {score} {word}")
        self.assertEqual(word, "OK")

    def test_operations_doc_quotes_the_real_score(self):
        score, word = exposure(UNIT)
        with open(OPERATIONS) as f:
            text = f.read()
        m = re.search(r"`systemd-analyze security[^`]*`\s+rates it\s+\*\*([0-9.]+) (\w+)\*\*", text)
        self.assertTrue(m, "docs/operations.md does not quote the unit's systemd-analyze security score")
        self.assertEqual((float(m.group(1)), m.group(2)), (score, word))

    def test_the_scorer_sees_a_weaker_unit(self):
        # The parser reads the score systemd computes: dropping the hardening
        # makes it worse than the limit.
        weak = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"nvmond-weak-{os.getpid()}", "nvmond.service")
        os.makedirs(os.path.dirname(weak), exist_ok=True)
        with open(UNIT) as f, open(weak, "w") as g:
            for line in f:
                if line.split("=", 1)[0] in ("SystemCallFilter", "ProtectSystem", "CapabilityBoundingSet",
                                             "RestrictNamespaces", "ProtectKernelTunables"):
                    continue
                g.write(line)
        self.assertGreater(exposure(weak)[0], MAX_EXPOSURE)
        shutil.rmtree(os.path.dirname(weak))

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare"), "needs root for a private mount namespace")
    def test_verify_is_clean_with_nvmond_installed(self):
        # Documentation= names manual pages, which verify looks up with man.
        script = ("set -e; mount -t tmpfs tmpfs /usr/sbin; cp \"$1\" /usr/sbin/nvmond; "
                  "mount -t tmpfs tmpfs /usr/share/man; "
                  "cmake --install \"$3\" --component man --prefix /usr >/dev/null; "
                  "systemd-analyze verify \"$2\"")
        r = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                            os.path.abspath(NVMOND), UNIT, BUILD_DIR],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(r.stdout.strip(), "", r.stdout)

    def test_io_uring_passes_the_system_call_filter(self):
        filters = unit_settings(UNIT).get("SystemCallFilter", [])
        allowed, denied = set(), set()
        for f in filters:
            deny = f.startswith("~")
            names = expand_syscalls(f.lstrip("~").split())
            (denied if deny else allowed).update(names)
        self.assertTrue(allowed, "no allow-list")
        self.assertLessEqual(IO_URING, allowed - denied)
        # The check itself can see a denial.
        self.assertIn("reboot", denied)

    def test_nvme_devices_and_proc_stay_reachable(self):
        s = unit_settings(UNIT)
        self.assertNotIn("yes", s.get("PrivateDevices", []))
        self.assertIn("char-nvme rw", s.get("DeviceAllow", []))
        self.assertIn("block-blkext rw", s.get("DeviceAllow", []))
        self.assertNotIn("pid", s.get("ProcSubset", []))
        self.assertIn("CAP_SYS_ADMIN", " ".join(s.get("CapabilityBoundingSet", [])).split())

    def test_no_ordering_on_udev_settle(self):
        s = unit_settings(UNIT)
        self.assertNotIn("systemd-udev-settle.service", " ".join(s.get("After", []) + s.get("Wants", [])))


class InstallPrefixTest(unittest.TestCase):
    def test_the_unit_runs_the_nvmond_of_its_prefix(self):
        for prefix in ("/usr", "/opt/nvmond"):
            s = unit_settings(install_unit(prefix))
            commands = s["ExecStartPre"] + s["ExecStart"] + s["ExecReload"][:1]
            self.assertEqual([c.split()[0] for c in commands], [f"{prefix}/sbin/nvmond"] * 3, prefix)
            self.assertIn(f"file://{prefix}/share/doc/nvmond/README.md", " ".join(s["Documentation"]), prefix)


class DefaultConfigTest(unittest.TestCase):
    """systemd/nvmond.toml, the package's /etc/nvmond/nvmond.toml."""

    def test_it_validates(self):
        r = subprocess.run([NVMOND, "--check-config", DEFAULT_CONFIG], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_every_documented_key_is_listed(self):
        # Rows of the daemon's table in docs/configuration.md: | `[section] key` |
        # or | `[section] key`, `other` |; each key appears, set or commented.
        with open(CONFIGURATION) as f:
            readme = f.read()
        table = readme.split("## The daemon's tables", 1)[1].split("\n## ", 1)[0]
        keys = []
        for row in re.findall(r"^\| `\[(\w+)\] ([^|]+)\|", table, re.M):
            section, rest = row
            keys += [(section, k) for k in re.findall(r"`?(\w+)`?", rest.split("|")[0])]
        self.assertGreater(len(keys), 10, "docs/configuration.md: the daemon's table not found")
        with open(DEFAULT_CONFIG) as f:
            text = f.read()
        missing = []
        for section, key in keys:
            body = re.search(r"^#?\[\[?" + section + r"\]\]?\n(.*?)(?=^#?\[|\Z)", text, re.M | re.S)
            if not body or not re.search(r"^#?" + key + r" = ", body.group(1), re.M):
                missing.append(f"[{section}] {key}")
        self.assertFalse(missing, "keys documented in docs/configuration.md but not in systemd/nvmond.toml: " + ", ".join(missing))


if __name__ == "__main__":
    unittest.main()
