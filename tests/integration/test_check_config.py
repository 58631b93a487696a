"""`nvmond --check-config` and `nvmonctl check-config`: exit status and
file:line:col messages for syntax and semantic errors."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMOND, NVMONCTL, SOURCE_DIR  # noqa: E402

CASES = [
    # (name, config text, expected message regex)
    ("syntax", '[daemon]\nlisten = "127.0.0.1:1\n', r":2:\d+: "),
    ("unknown key", '[collection]\npoll_interval = "1s"\npoll_intervall = "2s"\n',
     r':3:1: unknown key "collection\.poll_intervall"'),
    ("negative interval", '[collection]\n\npoll_interval = -5\n',
     r":3:17: collection\.poll_interval: -5s is out of range: must be between 100ms and 1d"),
    ("zero interval", '[collection]\nrescan_interval = "0s"\n',
     r":2:19: collection\.rescan_interval: 0s is out of range: must be between 1s and 1d"),
    ("duplicate device", '[[sim]]\nname = "a"\nserial = "X"\n[[sim]]\nname = "b"\nserial = "X"\n',
     r':6:10: sim\[1\]\.serial: duplicate device: serial "X" is already used by sim\[0\]'),
    ("bad choice", '[[sim]]\nname = "a"\nserial = "X"\nprofile = "laptop"\n',
     r':4:11: .*"laptop" is not one of'),
    ("bad nvme selection", '[nvme]\ndevices = 3\n', r":2:\d+: "),
    ("drive rated twice", '[[drive]]\nserial = "X"\nrated_dwpd = 1\n[[drive]]\nserial = "X"\nrated_tbw = "600TB"\n',
     r':5:10: drive\[1\]\.serial: duplicate device: serial "X" is configured twice'),
    ("drive without serial", '[[drive]]\nrated_dwpd = 1\n', r":1:1: drive\[0\]: serial is required"),
    ("excursion time without a date-time", '[[sim]]\nname = "a"\nserial = "X"\nthermal_excursion_at = "noon"\n',
     r':4:24: sim\[0\]\.thermal_excursion_at: expected an offset date-time'),
    ("excursion time without an offset", '[[sim]]\nname = "a"\nserial = "X"\nthermal_excursion_at = 2026-01-01T12:00:00\n',
     r':4:24: sim\[0\]\.thermal_excursion_at: expected an offset date-time'),
    ("unknown analytics key", '[thermal]\nthreshold = 70\n', r':2:1: unknown key "thermal\.threshold"'),
    # The daemon refused these at start after the check had passed them.
    ("unknown control group", '[control]\ngroup = "nvmond-no-such-group"\n[[sim]]\nname = "a"\nserial = "X"\n',
     r':2:9: control\.group: unknown group "nvmond-no-such-group"'),
    ("control socket is a regular file", '[control]\nsocket = "/etc/passwd"\n[[sim]]\nname = "a"\nserial = "X"\n',
     r':2:10: control\.socket: "/etc/passwd" exists and is not a socket'),
    ("control socket directory missing",
     '[control]\nsocket = "/nonexistent-nvmond/control.sock"\n[[sim]]\nname = "a"\nserial = "X"\n',
     r':2:10: control\.socket: directory "/nonexistent-nvmond" does not exist'),
    # a [[soak]] name is a directory under state_dir/runs/ and part of log lines
    ("soak name climbing out", '[[soak]]\nname = "../../x"\ntest = "wsat"\ntarget = "sim:a"\n',
     r":2:8: soak\[0\]\.name: may contain only letters, digits, '-', '_' and '\.'"),
    ("soak name with a newline", '[[soak]]\nname = "a\\nb"\ntest = "wsat"\ntarget = "sim:a"\n',
     r":2:8: soak\[0\]\.name: may contain only"),
    ("soak name of 10 MB", '[[soak]]\nname = "' + "a" * (10 << 20) + '"\ntest = "wsat"\ntarget = "sim:a"\n',
     r":2:8: soak\[0\]\.name: must be 1 to 64 characters \(got 10485760\)\n$"),
]


class CheckConfigTest(unittest.TestCase):
    def run_check(self, argv, text):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write(text)
        try:
            return f.name, subprocess.run(argv + [f.name], capture_output=True, text=True)
        finally:
            pass

    def test_errors_carry_file_line_col(self):
        for name, text, rx in CASES:
            for argv in ([NVMOND, "--check-config"], [NVMONCTL, "check-config"]):
                with self.subTest(case=name, tool=argv[0]):
                    path, r = self.run_check(argv, text)
                    self.assertNotEqual(r.returncode, 0)
                    self.assertRegex(r.stderr, "^" + path.replace(".", r"\.") + rx)

    def test_shipped_configs_are_valid(self):
        for rel in ("examples/demo.toml", "systemd/nvmond.toml"):
            with self.subTest(config=rel):
                r = subprocess.run([NVMOND, "--check-config", os.path.join(SOURCE_DIR, rel)],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
