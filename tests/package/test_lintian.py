"""What Debian's lintian says of the .deb: no error and no warning that the
package's overrides (packaging/debian/lintian-overrides, installed as
/usr/share/lintian/overrides/nvmond) do not explain, each override with its
reason and each still needed. The package also carries what Debian policy
asks of any package: the machine-readable copyright, a changelog compressed
with gzip -9n, the manual pages of its commands and configuration file, and
nvmonctl's bash completion.

Builds the package with cpack from the build tree ($NVMOND_BUILD_DIR), as
test_deb.py does; needs no root. Exit 77 (skipped) when lintian or cpack is
not installed (scripts/setup installs both).
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.normpath(os.path.join(HERE, "..", ".."))
BUILD_DIR = os.environ.get("NVMOND_BUILD_DIR", "build")
OVERRIDES = os.path.join(SOURCE_DIR, "packaging", "debian", "lintian-overrides")
SKIP = 77


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def build_deb(out):
    r = run(["cpack", "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake"), "-G", "DEB", "-B", out],
            timeout=600)
    if r.returncode != 0:
        raise AssertionError(f"cpack failed:\n{r.stdout}")
    (deb,) = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".deb")]
    return deb


def lintian_tags(output):
    """(severity letter, tag, rest) of each line lintian printed."""
    return [m.groups() for m in re.finditer(r"^([EWIPXON]): nvmond[^:]*: (\S+)(.*)$", output, re.M)]


def override_entries(path):
    """(reason, override line) for each override; a reason is the comment
    block right above its line."""
    entries, comment = [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                comment.append(line.lstrip("# ").strip())
            elif line.strip():
                entries.append((" ".join(comment).strip(), line.strip()))
                comment = []
            else:
                comment = []
    return entries


class LintianTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="nvmond-lintian-")
        cls.deb = build_deb(os.path.join(cls.work, "out"))
        cls.tree = os.path.join(cls.work, "tree")
        run(["dpkg-deb", "-x", cls.deb, cls.tree], check=True)
        # Every tag, info included, with overridden ones shown: the test
        # decides what fails, so the verdict is in its assertions.
        cls.lintian = run(["lintian", "--display-info", "--show-overrides", "--tag-display-limit", "0",
                           cls.deb], timeout=600)
        print(cls.lintian.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def path(self, p):
        return os.path.join(self.tree, p.lstrip("/"))

    def test_no_error_and_no_unexplained_warning(self):
        self.assertIn(self.lintian.returncode, (0, 1), f"lintian did not run:\n{self.lintian.stdout}")
        tags = lintian_tags(self.lintian.stdout)
        failing = [f"{sev}: {tag}{rest}" for sev, tag, rest in tags if sev in ("E", "W")]
        self.assertEqual(failing, [], self.lintian.stdout)

    def test_every_override_has_a_reason_and_is_still_needed(self):
        for reason, line in override_entries(OVERRIDES):
            self.assertGreater(len(reason.split()), 3, f"override without a reason: {line}")
        unused = [t for t in lintian_tags(self.lintian.stdout) if t[1] in ("unused-override", "mismatched-override")]
        self.assertEqual(unused, [], self.lintian.stdout)

    def test_the_overrides_are_installed(self):
        with open(OVERRIDES) as f, open(self.path("/usr/share/lintian/overrides/nvmond")) as g:
            self.assertEqual(f.read(), g.read())

    def test_copyright_is_machine_readable(self):
        with open(self.path("/usr/share/doc/nvmond/copyright")) as f:
            text = f.read()
        self.assertTrue(text.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        self.assertRegex(text, r"(?m)^Files: \*\n.*\nLicense: Apache-2.0$")

    def test_changelog_is_gzip_9n_and_names_the_version(self):
        path = self.path("/usr/share/doc/nvmond/changelog.gz")
        with open(path, "rb") as f:
            head = f.read(10)
        # gzip -n stores no name (FLG bit 3) and no time (MTIME 0); -9 sets XFL 2.
        self.assertEqual((head[3] & 0x08, head[4:8], head[8]), (0, b"\0\0\0\0", 2))
        version = run(["dpkg-deb", "-f", self.deb, "Version"], check=True).stdout.strip()
        with gzip.open(path, "rt") as f:
            self.assertTrue(f.readline().startswith(f"nvmond ({version})"))

    def test_bash_completion_is_installed(self):
        path = self.path("/usr/share/bash-completion/completions/nvmonctl")
        with open(path) as f, open(os.path.join(SOURCE_DIR, "packaging", "bash-completion", "nvmonctl")) as g:
            self.assertEqual(f.read(), g.read())
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o644)

    def test_manual_pages_are_installed(self):
        for page in ("man8/nvmond.8.gz", "man1/nvmonctl.1.gz", "man5/nvmond.toml.5.gz"):
            with gzip.open(self.path(f"/usr/share/man/{page}"), "rt") as f:
                text = f.read()
            self.assertRegex(text, r"(?m)^\.TH ", page)
        # nvmond.toml(5) carries the whole configuration reference.
        with gzip.open(self.path("/usr/share/man/man5/nvmond.toml.5.gz"), "rt") as f:
            text = f.read()
        for key in ("poll_interval", "thermal_time_constant", "tls_server_config", "pin_cpus", "on_throttle"):
            self.assertIn(key, text)


if __name__ == "__main__":
    for tool in ("lintian", "cpack", "dpkg-deb"):
        if not shutil.which(tool):
            print(f"SKIPPED: {tool} is not installed (scripts/setup installs it)")
            sys.exit(SKIP)
    unittest.main()
