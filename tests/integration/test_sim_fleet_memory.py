"""The daemon with 256 simulated 30 TB drives stays within 128 MB of resident
memory: each drive's valid-data map has a fixed size, whatever its capacity.
Half the drives carry a background write load, so their maps are written to
on every poll."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SANITIZED, Daemon, config, sim, wait_for  # noqa: E402

DRIVES = 256
LIMIT_BYTES = 128 * 1024 * 1024
CONFIG = config(
    *(sim(f"d{i}", f"FLEET-{i:03d}", "datacenter", capacity="30TB", write_rate="100MB" if i % 2 else "0")
      for i in range(DRIVES)),
    poll_interval="1s")


def resident_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/PID/status")


# AddressSanitizer's shadow memory and freed-block quarantine multiply resident
# memory several times over, so the limit says nothing about a sanitized build.
@unittest.skipIf(SANITIZED, "resident memory is meaningless under AddressSanitizer")
class SimFleetMemoryTest(unittest.TestCase):
    def test_256_simulated_30tb_drives_stay_within_128_mb(self):
        d = Daemon(CONFIG).start()
        try:
            # Every drive polled at least once: its series are published.
            wait_for(lambda: all(f'serial="FLEET-{i:03d}"' in (d.try_scrape() or "") for i in (0, DRIVES - 1)),
                     60, "the first and last drive's series")
            rss = resident_bytes(d.proc.pid)
            print(f"nvmond with {DRIVES} simulated 30 TB drives: {rss / 2**20:.1f} MiB resident", file=sys.stderr)
            self.assertLessEqual(rss, LIMIT_BYTES)
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
