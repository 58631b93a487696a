"""Controller-initiated telemetry, end to end on the accelerated clock: a
simulated drive that saves new telemetry every 10 minutes of its power-on
time gets each new generation saved under STATE_DIR/telemetry/SERIAL as the
drive's exact bytes, one log line naming each file, the saved/failed counter
agreeing with those lines, and the drive's directory kept under its size cap
by deleting its oldest captures.
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, has_series, sim, table, value  # noqa: E402

SERIAL = "SIM-TEL"
AREA3_BYTES = (256 + 1) * 512  # the simulated drive's data area 3 ends at block 256
CAP = 1 << 20                   # max_bytes_per_drive: 7 captures of area 3 fit, 8 do not
CONFIG = config(
    table("[clock]", mode="accelerated", factor=1200),
    table("[telemetry]", min_interval="10m", data_area=3, max_bytes_per_drive="1MiB", max_bytes="64MiB"),
    sim("tel", SERIAL, "generic", telemetry_interval="10m"),
    poll_interval="1m", command_timeout="2s")
NAME = re.compile(r"^\d{8}T\d{6}Z-gen(\d{3})-area3\.bin$")


def saved(m):
    return value(m, "nvmond_telemetry_captures_total", serial=SERIAL, result="saved")


class TelemetryCaptureTest(unittest.TestCase):
    def test_new_generations_are_saved_byte_exact_named_in_the_log_and_capped(self):
        d = Daemon(CONFIG)
        try:
            d.start()
            m = d.wait_metric(lambda m: has_series(m, "nvmond_telemetry_captures_total", serial=SERIAL,
                                                   result="saved") and saved(m) >= 10,
                              60, "ten captures saved")
            self.assertEqual(value(m, "nvmond_telemetry_captures_total", serial=SERIAL, result="failed"), 0)
            d.stop()
        finally:
            if not d.exited():
                d.stop()
        drive_dir = os.path.join(d.dir, "state", "telemetry", SERIAL)
        lines = re.findall(rf"drive {SERIAL} at sim:tel: controller-initiated telemetry generation (\d+) "
                           rf"\(data areas 1-3, {AREA3_BYTES} bytes\) saved to (\S+)", d.log_text())
        self.assertGreaterEqual(len(lines), 10)
        generations = [int(g) for g, _ in lines]
        self.assertEqual(len(set(generations)), len(generations), f"a generation saved twice: {generations}")
        self.assertEqual(generations, sorted(generations))
        for _, path in lines:
            self.assertEqual(os.path.dirname(path), drive_dir)

        files = sorted(os.listdir(drive_dir))
        self.assertEqual(len(files), CAP // AREA3_BYTES, files)
        self.assertLessEqual(sum(os.path.getsize(os.path.join(drive_dir, f)) for f in files), CAP)
        # The newest captures are the ones kept.
        kept = [int(NAME.match(f).group(1)) for f in files]
        self.assertEqual(kept, generations[-len(files):])
        for name, gen in zip(files, kept):
            with open(os.path.join(drive_dir, name), "rb") as f:
                data = f.read()
            self.assertEqual(len(data), AREA3_BYTES)
            self.assertEqual(data[0], 0x08, "Log Identifier")
            self.assertEqual(data[382], 1, "Controller-Initiated Data Available")
            self.assertEqual(data[383], gen, "Controller-Initiated Data Generation Number")
            self.assertEqual(int.from_bytes(data[12:14], "little"), 256, "Data Area 3 Last Block")
            self.assertTrue(data[512:].startswith(f"SIMTELEMETRY {SERIAL} gen {gen} block 1".encode()))
            self.assertTrue(data[256 * 512:].startswith(f"SIMTELEMETRY {SERIAL} gen {gen} block 256".encode()))


if __name__ == "__main__":
    unittest.main()
