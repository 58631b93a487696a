"""The fleet and workloads dashboards on the demo, as their links open them:
nvmond runs examples/demo.toml (as test_demo does: its drives, job and soak as
shipped, an accelerated clock), a real Prometheus scrapes it every second, and
every panel, annotation and variable query of grafana/dashboards/nvmond-fleet.json
and nvmond-workloads.json returns data

- with every variable at All (the fleet overview, every workload), and
- for the demo's datacenter drive, which throttles under its job: the view a
  link from its row opens (serial = that drive), its throttle annotation on
  both dashboards included,

except the queries listed below as rightly empty on the demo, each with why;
the drive's throttling is marked on both dashboards (its throttle annotations
return it, and only it).
The links that take a drive from a drawn series (${__field.labels.serial})
are only on panels whose every series carries a serial, and the links from a
table row (${__data.fields.serial}) only on tables with a serial column.

Every wait polls the HTTP API against a deadline; both processes are killed
on every exit path. Loopback only.
"""
import json
import os
import sys
import time
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR  # noqa: E402
from grafana_files import all_panels, annotation_queries, dashboard_queries, panel_queries  # noqa: E402
from test_demo import DEMO, SPEEDUP, demo_config  # noqa: E402
from test_prometheus import DaemonAndPrometheus  # noqa: E402
from test_soak_dashboard import GRAFANA_VARS, empty_queries, grafana_escaped, query_range, substitute  # noqa: E402

DASHBOARDS = os.path.join(SOURCE_DIR, "grafana", "dashboards")


def demo_job():
    """(the [[job]] of examples/demo.toml, the serial of the simulated drive it
    runs on, the serials of every simulated drive)."""
    with open(DEMO, "rb") as f:
        demo = tomllib.load(f)
    (job,) = demo["job"]
    serials = {s["name"]: s["serial"] for s in demo["sim"]} | {s["serial"]: s["serial"] for s in demo["sim"]}
    return job["name"], serials[job["target"].removeprefix("sim:")], set(serials.values())


# The demo's datacenter drive, which throttles under the demo's job.
JOB, HOT, SERIALS = demo_job()
ALL = {"$instance": ".*", "$serial": ".*", "$workload": ".*", "$op": ".*"}
DRIVE = {**ALL, "$serial": grafana_escaped(HOT)}
# Queries that are rightly empty on the demo: (dashboard, view, where) -> why.
RIGHTLY_EMPTY = {
    ("fleet", view, 'panel "Device self-test progress (while one runs)" A'): "no device self-test runs in the demo"
    for view in ("all", "drive")
} | {
    ("fleet", view, 'panel "Collection errors by reason" A'): "no poll of a simulated drive fails"
    for view in ("all", "drive")
} | {
    ("workloads", view, 'panel "Errors (I/O failures and verify mismatches)" A'): "the demo's job has no I/O errors"
    for view in ("all", "drive")
} | {
    # A thermal excursion is logged when a drive reaches its WCTEMP: the
    # datacenter drive's throttle holds it near 76 °C, below its 78 °C, and
    # the power-on entries were logged before nvmond started (no increase).
    ("fleet", view, 'panel "Drive event log events per hour by type (thermal_excursion and hardware_error '
                    'are the drive\'s own evidence)" A'): "no drive reaches its WCTEMP in the demo's first minutes"
    for view in ("all", "drive")
} | {
    # Only the heatsink drive's error log fills (its media errors).
    ("fleet", "drive", 'panel "Error log entries per hour by status class (media and path page; '
                       'generic_host is the host\'s own mistakes)" A'): f"{HOT} logs no command errors",
}


def load(name):
    with open(os.path.join(DASHBOARDS, f"nvmond-{name}.json")) as f:
        return json.load(f)


def links_of(panel):
    """(refId the links are for, or None for all of them, url) of a panel's data links."""
    fc = panel.get("fieldConfig", {})
    out = [(None, link["url"]) for link in fc.get("defaults", {}).get("links", [])]
    for o in fc.get("overrides", []):
        for prop in o["properties"]:
            if prop["id"] == "links":
                self_ref = o["matcher"]["options"] if o["matcher"]["id"] == "byFrameRefID" else None
                out += [(self_ref, link["url"]) for link in prop["value"]]
    return out


class DemoDashboardsTest(DaemonAndPrometheus):
    CONFIG = demo_config()

    @classmethod
    def setUpClass(cls):
        cls.dashboards = {name: load(name) for name in ("fleet", "workloads")}
        super().setUpClass()
        cls.t0 = time.time()

    def unexpected_empty(self):
        """'dashboard view: where: query' of every query empty without a reason listed."""
        out = []
        for name, dash in self.dashboards.items():
            for view, variables in (("all", ALL), ("drive", DRIVE)):
                for where, expr in empty_queries(self.p, panel_queries(dash), variables, self.t0 - 60):
                    if (name, view, where) not in RIGHTLY_EMPTY:
                        out.append(f"{name} ({view}): {where}: {substitute(expr, {**variables, **GRAFANA_VARS})}")
        return out

    def label_values(self, dash, name, variables):
        """The values Grafana offers for the label_values(selector, label) variable `name`."""
        exprs = [e for w, e in dashboard_queries(dash) if w == f'variable "{name}"']
        self.assertEqual(len(exprs), 1, f'{dash["uid"]}: no variable {name}')
        expr = exprs[0]
        data = self.p.api("series", **{"match[]": substitute(expr, variables),
                                       "start": str(self.t0 - 60), "end": str(time.time())})
        return {s[name] for s in data or [] if name in s}

    def wait_for_every_query(self):
        """Waits, once for the class, until every query not rightly empty has
        had data: five minutes of the demo (the datacenter drive crosses its
        70 °C throttle point in about three, and its event log's thermal
        excursion follows), and room for a loaded machine."""
        cls = type(self)
        if getattr(cls, "empty", None) is None:
            deadline = time.monotonic() + 300 / SPEEDUP + 60
            cls.empty = self.unexpected_empty()
            while cls.empty and time.monotonic() < deadline:
                time.sleep(0.5)  # polling interval of an event wait
                cls.empty = self.unexpected_empty()
            print(f"waited {time.time() - self.t0:.1f} s after Prometheus started", file=sys.stderr)
        return cls.empty

    def test_every_query_returns_data_overall_and_for_the_throttling_drive(self):
        empty = self.wait_for_every_query()
        self.assertFalse(empty, "queries without data:\n" + "\n".join(empty) + self.diagnose())

    def test_throttle_annotations_mark_the_drive_on_both_dashboards(self):
        self.wait_for_every_query()
        for name, dash in self.dashboards.items():
            with self.subTest(dashboard=name):
                marked = {s["metric"].get("serial") for a, expr in annotation_queries(dash)
                          for s in query_range(self.p, f"{name}: {a['name']}", expr, DRIVE, self.t0 - 60)}
                self.assertEqual(marked, {HOT}, f"{name}: throttle annotations for serial={HOT}")

    def test_variables_offer_the_drive_and_its_workload(self):
        self.wait_for_every_query()
        fleet, workloads = self.dashboards["fleet"], self.dashboards["workloads"]
        self.assertEqual(SERIALS, self.label_values(fleet, "serial", ALL))
        # The workloads dashboard lists the drive a job runs on, and for that
        # drive its job (what a link from the fleet opens).
        self.assertIn(HOT, self.label_values(workloads, "serial", ALL))
        self.assertEqual({JOB}, self.label_values(workloads, "workload", DRIVE))

    def test_links_from_series_and_rows_have_a_serial_to_carry(self):
        self.wait_for_every_query()
        bad = []
        for name, dash in self.dashboards.items():
            for p in all_panels(dash):
                for ref, url in links_of(p):
                    if "${__field.labels.serial}" in url:
                        targets = [t for t in p["targets"] if ref in (None, t["refId"])]
                    elif "${__data.fields.serial}" in url:
                        targets = p["targets"][:1]  # the table's rows: its first query's series
                    else:
                        continue
                    for t in targets:
                        where = f'{name}: panel "{p["title"]}" {t["refId"]}'
                        series = query_range(self.p, where, t["expr"], ALL, self.t0 - 60)
                        bad += [f"{where}: {s['metric']} has no serial for {url}"
                                for s in series if not s["metric"].get("serial")]
        self.assertFalse(bad, "\n".join(bad))


if __name__ == "__main__":
    unittest.main()
