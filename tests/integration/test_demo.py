"""The demo fills the soak dashboard: nvmond runs examples/demo.toml (what
scripts/demo starts: its drives, job and [[soak]] as shipped; only the
listen address and state directory are the test's, and an accelerated clock
makes the demo's first minutes pass in seconds), a real Prometheus scrapes it
every second, and every panel and annotation query of
grafana/dashboards/nvmond-soak.json, for the demo soak's drive, returns data:
its rounds, steady-state window and latencies, and the drive throttling while
the soak runs.

Every wait polls against a deadline; both processes are killed on every exit
path. Loopback only.
"""
import os
import re
import sys
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR  # noqa: E402
from test_soak_dashboard import SoakDashboardQueries  # noqa: E402

DEMO = os.path.join(SOURCE_DIR, "examples", "demo.toml")
# The demo's real clock would need about two minutes; ten times faster keeps
# every poll interval and round well above what a loaded machine can serve.
SPEEDUP = 10


def demo_config():
    """examples/demo.toml with the test's port and state directory and a faster clock."""
    with open(DEMO) as f:
        text = f.read()
    text, listens = re.subn(r'^listen = ".*"', 'listen = "127.0.0.1:@PORT@"', text, flags=re.M)
    text, states = re.subn(r'^state_dir = ".*"', 'state_dir = "@STATE@"', text, flags=re.M)
    assert listens == states == 1, "examples/demo.toml: expected one listen and one state_dir line"
    return text + f'\n[clock]\nmode = "accelerated"\nfactor = {SPEEDUP}\n'


def soak_serials():
    """The serials of the drives the demo's [[soak]] tables run on."""
    with open(DEMO, "rb") as f:
        demo = tomllib.load(f)
    by_name = {s["name"]: s["serial"] for s in demo.get("sim", [])}
    by_name.update({s["serial"]: s["serial"] for s in demo.get("sim", [])})
    return [by_name[s["target"].removeprefix("sim:")] for s in demo.get("soak", [])]


class DemoSoakDashboardTest(SoakDashboardQueries):
    CONFIG = demo_config()

    def test_every_soak_dashboard_query_returns_data_for_the_demo_soak(self):
        serials = soak_serials()
        self.assertTrue(serials, "examples/demo.toml has no [[soak]] on a simulated drive")
        # Two minutes of the demo, and room for a loaded machine.
        self.assert_every_query_of_the_row_returns_data(set(serials), serials[0], within=120 / SPEEDUP + 30)


if __name__ == "__main__":
    unittest.main()
