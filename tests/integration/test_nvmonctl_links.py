"""nvmonctl is the operator's tool: it talks to the daemon through the
control protocol and runs tests in the foreground, and links none of the
daemon's own libraries (TLS for the metrics endpoint, libsystemd)."""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMONCTL  # noqa: E402

# The daemon's process libraries. libnvme itself needs libcrypto, so the
# check reads what nvmonctl links directly (its NEEDED entries), not ldd's
# whole closure.
DAEMON_ONLY = ("libssl", "libcrypto", "libsystemd")
# The linker drops a library nothing calls (Debian's gcc links --as-needed),
# so the link line is read too: what it names is what nvmonctl depends on.
DAEMON_LIBRARIES = ("libssl", "libcrypto", "libsystemd", "libnvmond_daemon", "libnvmond_http")


def needed(binary):
    out = subprocess.run(["readelf", "--dynamic", binary], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


class NvmonctlLinks(unittest.TestCase):
    def test_nvmonctl_links_no_daemon_library(self):
        libs = needed(NVMONCTL)
        self.assertTrue(libs, "readelf found no NEEDED entry in " + NVMONCTL)
        linked = [lib for lib in libs if lib.startswith(DAEMON_ONLY)]
        self.assertEqual(linked, [], f"{NVMONCTL} links {linked}")

    def test_nvmonctl_is_not_linked_against_the_daemon(self):
        ninja = os.path.join(os.path.dirname(os.path.abspath(NVMONCTL)), "build.ninja")
        if not os.path.isfile(ninja):
            self.skipTest("no build.ninja beside " + NVMONCTL)
        with open(ninja) as f:
            text = f.read()
        m = re.search(r"^build nvmonctl: .*?\n((?:  .*\n)+)", text, re.M)
        self.assertIsNotNone(m, "no link statement for nvmonctl in " + ninja)
        libs = re.search(r"^  LINK_LIBRARIES = (.*)$", m.group(1), re.M)
        named = [os.path.basename(w) for w in (libs.group(1).split() if libs else [])]
        linked = sorted({n for n in named if n.startswith(DAEMON_LIBRARIES)})
        self.assertEqual(linked, [], "nvmonctl's link line names " + ", ".join(linked))


if __name__ == "__main__":
    unittest.main()
