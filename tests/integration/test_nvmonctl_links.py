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


def needed(binary):
    out = subprocess.run(["readelf", "--dynamic", binary], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


class NvmonctlLinks(unittest.TestCase):
    def test_nvmonctl_links_no_daemon_library(self):
        libs = needed(NVMONCTL)
        self.assertTrue(libs, "readelf found no NEEDED entry in " + NVMONCTL)
        linked = [lib for lib in libs if lib.startswith(DAEMON_ONLY)]
        self.assertEqual(linked, [], f"{NVMONCTL} links {linked}")


if __name__ == "__main__":
    unittest.main()
