"""The bash completion the package installs for nvmonctl
(packaging/bash-completion/nvmonctl): sourced in bash, it completes
subcommands, their options, test names and the [[sim]] drives of --config,
and it knows every subcommand nvmonctl --help lists."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMONCTL, SOURCE_DIR, config, nvmonctl, sim  # noqa: E402
from test_nvmonctl_examples import every_subcommand  # noqa: E402

SCRIPT = os.path.join(SOURCE_DIR, "packaging", "bash-completion", "nvmonctl")


def complete(line):
    """What <TAB> at the end of `line` offers, as bash-completion would ask:
    COMP_WORDS split on blanks, the cursor in the last word."""
    words = line.split(" ")
    program = (f'source "$1"; COMP_WORDS=({" ".join(repr(w) for w in words)}); '
               f'COMP_CWORD={len(words) - 1}; _nvmonctl; printf "%s\\n" "${{COMPREPLY[@]}}"')
    # The completion asks the nvmonctl on PATH for the test names: the built one.
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(NVMONCTL)) + os.pathsep + os.environ["PATH"])
    r = subprocess.run(["bash", "-c", program, "bash", SCRIPT], capture_output=True, text=True, timeout=30, env=env)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return sorted(w for w in r.stdout.splitlines() if w)


class BashCompletion(unittest.TestCase):
    def test_st_completes_to_start_status_and_stop(self):
        self.assertEqual(complete("nvmonctl st"), ["start", "status", "stop"])

    def test_every_subcommand_of_the_help_completes(self):
        offered = complete("nvmonctl ")
        for path in every_subcommand():
            if len(path) == 1:
                self.assertIn(path[0], offered)
        self.assertEqual(complete("nvmonctl test "), ["--help", "run"])
        self.assertEqual(complete("nvmonctl selftest "), ["--help", "abort", "start", "status"])
        self.assertIn("--extended", complete("nvmonctl selftest start SIM-DC0 --"))

    def test_test_names_options_and_sim_drives(self):
        self.assertEqual(complete("nvmonctl start ws"), ["wsat"])
        self.assertIn("--all", complete("nvmonctl stop --"))
        self.assertIn("--out", complete("nvmonctl test run wsat --"))
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
            f.write(config(sim("dc0", "SIM-DC0", "datacenter"), sim("dc1", "SIM-DC1", "datacenter")))
            f.flush()
            start = f"nvmonctl --config {f.name} start wsat --target"
            self.assertEqual(complete(f"{start} sim:"), ["sim:dc0", "sim:dc1"])
            # As bash splits the line at a colon: "sim" ":" "d".
            self.assertEqual(complete(f"{start} sim :"), [":dc0", ":dc1"])
            self.assertEqual(complete(f"{start} sim : d"), ["dc0", "dc1"])

    def test_the_test_names_are_the_ones_nvmonctl_knows(self):
        # nvmonctl's help lists the tests from their schemas; the completion
        # is a shell script of its own, so a test added without it shows here.
        listed = re.search(r"Test name: ([a-z, ]+);", nvmonctl("start", "--help").stdout)
        self.assertIsNotNone(listed)
        known = sorted(listed.group(1).split(", "))
        for line in ("nvmonctl start ", "nvmonctl test run "):
            self.assertEqual([w for w in complete(line) if not w.startswith("-")], known, line)


if __name__ == "__main__":
    unittest.main()
