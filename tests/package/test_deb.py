"""The Debian package on a clean Debian 12 (a debootstrap chroot).

cpack builds the .deb from the build tree; a fresh bookworm chroot (minbase
plus systemd, so systemd-analyze is there) gets the package's Depends from
the Debian mirror, then the package by `dpkg -i`. Proves: it installs,
`nvmond --version` runs from it, the installed unit passes `systemd-analyze
verify`, the configuration is a conffile that validates; booted under
systemd-nspawn (unit_boot.py) the unit starts nvmond with only
CAP_SYS_ADMIN and CAP_CHOWN and its seccomp filter, which reads a simulated drive and runs
io_uring jobs (outside the state directory only with the
ReadWritePaths drop-in); and the state directory survives a reinstall, an
upgrade to a newer version, `dpkg -r` and a plain purge (history is kept),
while a purge with NVMOND_PURGE_HISTORY=yes deletes it.

The chroot (packaging/debian_root.py, shared with the OCI image) is built
once and cached as a tarball
($NVMOND_CHROOT_CACHE, default /var/cache/nvmond-tests/bookworm.tar), with
the packages apt downloaded beside it, so a rerun needs no network unless the
dependencies changed. Needs root (chroot, mounts). Exit 77 (skipped) when not
root, or when debootstrap cannot reach the mirror and no cache exists.
"""
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "packaging"))
import debian_root  # noqa: E402
import unit_boot  # noqa: E402

BUILD_DIR = os.environ.get("NVMOND_BUILD_DIR", "build")
SKIP = 77
run = debian_root.run
chroot_run = debian_root.chroot_run


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(SKIP)


def bumped(deb, out):
    """The same package with a newer version: an upgrade, as dpkg sees it."""
    tree = os.path.join(out, "repack")
    run(["dpkg-deb", "-R", deb, tree], check=True)
    control = os.path.join(tree, "DEBIAN", "control")
    with open(control) as f:
        text = f.read()
    version = re.search(r"^Version: (.*)$", text, re.M).group(1)
    with open(control, "w") as f:
        f.write(text.replace(f"Version: {version}", f"Version: {version}+upgrade1"))
    newer = os.path.join(out, "nvmond-upgrade.deb")
    run(["dpkg-deb", "--root-owner-group", "-b", tree, newer], check=True)
    return newer, version + "+upgrade1"


class DebPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="nvmond-deb-")
        cls.root = os.path.join(cls.work, "root")
        debian_root.unpack_root(cls.root)
        cls.deb = debian_root.build_deb(BUILD_DIR, os.path.join(cls.work, "out"))
        shutil.copy(cls.deb, os.path.join(cls.root, "tmp", "nvmond.deb"))
        cls.newer, cls.newer_version = bumped(cls.deb, os.path.join(cls.work, "out"))
        shutil.copy(cls.newer, os.path.join(cls.root, "tmp", "nvmond-upgrade.deb"))
        debian_root.install_depends(cls.root, cls.deb)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def sh(self, script, env=None, ok=True):
        r = chroot_run(self.root, script, env)
        if ok:
            self.assertEqual(r.returncode, 0, f"{script}:\n{r.stdout}")
        return r

    def path(self, p):
        return os.path.join(self.root, p.lstrip("/"))

    def test_install_run_verify_upgrade_remove_purge(self):
        # One story in order: each step starts from the state the last left.
        r = self.sh("dpkg -i /tmp/nvmond.deb")
        self.assertNotIn("warning", r.stdout.lower(), r.stdout)
        version = run(["dpkg-deb", "-f", self.deb, "Version"], check=True).stdout.strip()
        self.assertEqual(self.sh("nvmond --version").stdout.strip(), version.split("-")[0])
        self.sh("nvmonctl --help >/dev/null")

        unit = self.sh("dpkg -L nvmond | grep '/systemd/system/nvmond.service$'").stdout.strip()
        # The minimal chroot has no man-db to look up Documentation='s manual
        # pages: test_lintian.py checks the package has them, test_systemd_unit
        # that verify finds them.
        r = self.sh(f"systemd-analyze verify --man=no {unit}")
        self.assertEqual(r.stdout.strip(), "", r.stdout)
        self.assertIn("ExecStart=/usr/sbin/nvmond --config /etc/nvmond/nvmond.toml",
                      self.sh(f"cat {unit}").stdout.splitlines(), "the unit runs the packaged nvmond")
        self.assertTrue(os.path.exists(self.path("/usr/share/doc/nvmond/README.md")), "Documentation= target")
        for f in ("/usr/share/nvmond/grafana/dashboards/nvmond-fleet.json",
                  "/usr/share/nvmond/grafana/rules/nvmond.rules.yml",
                  "/usr/share/nvmond/grafana/fleet/prometheus.yml"):
            self.assertTrue(os.path.exists(self.path(f)), f)

        # The configuration is a conffile and valid as shipped.
        self.assertIn("/etc/nvmond/nvmond.toml", self.sh("dpkg-query -W -f='${Conffiles}' nvmond").stdout)
        self.sh("nvmond --check-config /etc/nvmond/nvmond.toml")
        self.assertTrue(os.path.isdir(self.path("/var/lib/nvmond")), "postinst creates the state directory")

        # The unit as systemd runs it; it leaves a real history behind.
        if unit_boot.available():
            self.check_unit_under_systemd()
        else:
            print("NOT CHECKED: systemd-nspawn is not installed (scripts/setup installs systemd-container); "
                  "the unit was not started under systemd")
            with open(self.path("/var/lib/nvmond/nvmond.db"), "wb") as f:
                f.write(b"history")

        # History and an operator's edit survive a reinstall and an upgrade.
        with open(self.path("/var/lib/nvmond/nvmond.db"), "rb") as f:
            history = f.read()
        self.assertTrue(history)
        with open(self.path("/etc/nvmond/nvmond.toml"), "a") as f:
            f.write("# edited by the operator\n")
        self.sh("dpkg -i /tmp/nvmond.deb")
        self.sh("dpkg -i /tmp/nvmond-upgrade.deb")
        self.assertEqual(self.sh("dpkg-query -W -f='${Version}' nvmond").stdout.strip(), self.newer_version)
        with open(self.path("/var/lib/nvmond/nvmond.db"), "rb") as f:
            self.assertEqual(f.read(), history)
        with open(self.path("/etc/nvmond/nvmond.toml")) as f:
            self.assertIn("# edited by the operator", f.read())

        # Remove keeps history and configuration; purge drops the
        # configuration but keeps the history unless asked.
        self.sh("dpkg -r nvmond")
        self.assertFalse(os.path.exists(self.path("/usr/sbin/nvmond")))
        self.assertTrue(os.path.exists(self.path("/var/lib/nvmond/nvmond.db")))
        self.assertTrue(os.path.exists(self.path("/etc/nvmond/nvmond.toml")))
        r = self.sh("dpkg -P nvmond")
        self.assertIn("kept the drive history", r.stdout)
        self.assertFalse(os.path.exists(self.path("/etc/nvmond/nvmond.toml")))
        self.assertTrue(os.path.exists(self.path("/var/lib/nvmond/nvmond.db")))
        self.sh("dpkg -i /tmp/nvmond.deb")
        self.sh("dpkg -P nvmond", env={"NVMOND_PURGE_HISTORY": "yes"})
        self.assertFalse(os.path.exists(self.path("/var/lib/nvmond")))

    def check_unit_under_systemd(self):
        """Boots the chroot with systemd as PID 1: nvmond runs under every
        restriction of the installed unit, reads its drive, runs io_uring
        in the state directory; a job outside it is refused by
        ProtectSystem=strict until the documented ReadWritePaths drop-in."""
        unit_boot.prepare(self.root)
        first = unit_boot.boot(self.root)
        log = first["log"]
        self.assertEqual(first["state"], {"ActiveState": "active", "NRestarts": "0"}, log)
        for cap in ("CapBnd", "CapPrm", "CapEff"):
            # CAP_SYS_ADMIN (21) for NVMe admin commands, CAP_CHOWN (0) for [control] group
            self.assertEqual(int(first["status"][cap], 16), (1 << 21) | (1 << 0),
                             f"{cap}: only CAP_SYS_ADMIN and CAP_CHOWN\n{log}")
        self.assertEqual(first["status"].get("Seccomp"), "2", "a seccomp filter is on")
        self.assertEqual(first["status"].get("NoNewPrivs"), "1")
        m = first["metrics"]
        self.assertEqual(m.get(f'nvme_up{{serial="{unit_boot.SERIAL}"}}'), 1, log)
        self.assertGreater(m.get('nvmond_workload_ops_total{workload="state-dir",op="write"}', 0), 0, log)
        self.assertEqual(m.get('nvmond_workload_failed{workload="state-dir"}'), 0, log)
        self.assertEqual(m.get('nvmond_workload_failed{workload="outside"}'), 1, log)
        self.assertIn("Read-only file system", log)

        unit_boot.add_read_write_drop_in(self.root)
        second = unit_boot.boot(self.root)
        m = second["metrics"]
        self.assertGreater(m.get('nvmond_workload_ops_total{workload="outside",op="write"}', 0), 0, second["log"])
        self.assertEqual(m.get('nvmond_workload_failed{workload="outside"}'), 0, second["log"])
        self.assertTrue(os.path.getsize(self.path("/var/lib/nvmond/nvmond.db")) > 0)


if __name__ == "__main__":
    why = debian_root.unready(("debootstrap", "cpack", "dpkg-deb", "unshare"))
    if why:
        skip(why)
    unittest.main()
