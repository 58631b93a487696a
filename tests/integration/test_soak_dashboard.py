"""The soak dashboard (grafana/dashboards/nvmond-soak.json) against a real
Prometheus: nvmond runs a simulated WSAT soak ([[soak]] on a [[sim]] drive,
accelerated clock) on a datacenter drive that heats past its throttle point
within seconds, /usr/bin/prometheus scrapes it every second, and every panel
query and annotation query of the dashboard, with its template variables
substituted as Grafana would for this drive's row, returns data over the
test's time range; the template variables list the instance and one serial
per running soak (two drives soak at once: two rows).

Every wait polls the HTTP API against a deadline; both processes are killed
on every exit path. Loopback only.
"""
import json
import os
import re
import sys
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR, config, sim, table, wait_for  # noqa: E402
from test_prometheus import DaemonAndPrometheus  # noqa: E402
from grafana_files import panel_queries  # noqa: E402

DASHBOARD = os.path.join(SOURCE_DIR, "grafana", "dashboards", "nvmond-soak.json")
SERIAL = "SOAKDASH-DC"
OTHER = "SOAKDASH-HS"  # a second drive soaking at the same time: a second row
CONFIG = config(
    table("[clock]", mode="accelerated", factor=60),
    # Background writes heat the drive past its throttle point within seconds.
    sim("dc0", SERIAL, "datacenter", write_rate="1000MB"),
    sim("hs0", OTHER, "consumer-heatsink"),
    # Long enough to be running for the whole test.
    *(table("[[soak]]", name=name, test="wsat", target=target, params={"rounds": 100000, "round": "10s"})
      for name, target in (("dash-wsat", "sim:dc0"), ("dash-wsat-hs", "sim:hs0"))),
    poll_interval="250ms", command_timeout="2s")
# What Grafana substitutes; $__rate_interval is at least four scrape intervals.
GRAFANA_VARS = {"$__rate_interval": "4s", "$__interval": "1s"}


def grafana_escaped(value):
    """A multi-value variable's value as Grafana puts it into PromQL: regex
    metacharacters escaped, the backslash doubled inside the string literal."""
    return re.sub(r"([\\^$*+?.()|{}\[\]])", r"\\\\\1", value)


def substitute(expr, variables):
    for name in sorted(variables, key=len, reverse=True):
        expr = expr.replace(name, variables[name])
    return expr


def query_range(prometheus, where, expr, variables, start):
    """The series one dashboard query returns from `start` until now, with
    its variables substituted as Grafana would (a query Prometheus refuses
    is a broken panel: AssertionError)."""
    q = substitute(expr, {**variables, **GRAFANA_VARS})
    params = urllib.parse.urlencode({"query": q, "start": start, "end": time.time(), "step": 1})
    try:
        with urllib.request.urlopen(f"{prometheus.base}/api/v1/query_range?{params}", timeout=10) as r:
            return [s for s in json.load(r)["data"]["result"] if s["values"]]
    except urllib.error.HTTPError as e:
        raise AssertionError(f"{where}: {q}: {e.read().decode(errors='replace')}") from None


def empty_queries(prometheus, queries, variables, start):
    """The (where, expr) of `queries` that return no sample from `start` until now."""
    return [(where, expr) for where, expr in queries if not query_range(prometheus, where, expr, variables, start)]


class SoakDashboardQueries(DaemonAndPrometheus):
    """The soak dashboard's template variables and queries against the
    class's daemon and Prometheus (no tests of its own, so other test files
    can import it)."""

    @classmethod
    def setUpClass(cls):
        with open(DASHBOARD) as f:
            cls.dash = json.load(f)
        super().setUpClass()
        cls.t0 = time.time()

    def variable_values(self, name, variables):
        """The values Grafana offers for a label_values(selector, label) variable."""
        (v,) = [v for v in self.dash["templating"]["list"] if v["name"] == name]
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", v["query"]["query"])
        data = self.p.api("series", **{"match[]": substitute(m.group(1), variables),
                                       "start": str(self.t0 - 60), "end": str(time.time())})
        return {s[m.group(2)] for s in data or [] if m.group(2) in s}

    def empty_queries(self, variables):
        """The panel and annotation queries that return no sample over the test so far."""
        return [f"{where}: {substitute(expr, {**variables, **GRAFANA_VARS})}"
                for where, expr in empty_queries(self.p, panel_queries(self.dash), variables, self.t0 - 60)]

    def assert_every_query_of_the_row_returns_data(self, serials, serial, within):
        """The variables list this instance and `serials` (one repeated row
        per running soak), and within `within` seconds every query of
        `serial`'s row has returned data."""
        instance = f"127.0.0.1:{self.d.port}"
        try:
            wait_for(lambda: instance in self.variable_values("instance", {}), 30, "the instance variable")
        except AssertionError as e:
            raise AssertionError(str(e) + self.diagnose())
        # Grafana's "All" for $instance: one serial, so one repeated row, per running soak.
        wait_for(lambda: self.variable_values("serial", {"$instance": ".*"}) == set(serials), 20,
                 f"the serial variable to list {sorted(serials)}")
        # The row of that drive, as Grafana repeats it for its serial.
        row = {"$instance": grafana_escaped(instance), "$serial": grafana_escaped(serial)}
        # The steady-state window needs five rounds and throttle events a hot
        # drive: wait until nothing is empty, then report what still is.
        deadline = time.monotonic() + within
        empty = self.empty_queries(row)
        while empty and time.monotonic() < deadline:
            time.sleep(0.5)  # polling interval of an event wait
            empty = self.empty_queries(row)
        self.assertFalse(empty, "queries without data:\n" + "\n".join(empty) + self.diagnose())
        print(f"every query had data {time.time() - self.t0:.1f} s after Prometheus started", file=sys.stderr)


class SoakDashboardTest(SoakDashboardQueries):
    CONFIG = CONFIG

    def test_variables_list_the_soak_and_every_query_of_its_row_returns_data(self):
        self.assert_every_query_of_the_row_returns_data({SERIAL, OTHER}, SERIAL, within=40)


if __name__ == "__main__":
    unittest.main()
