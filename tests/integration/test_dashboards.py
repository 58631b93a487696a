"""Tier 2: the dashboards in grafana/dashboards are Grafana dashboard JSON that
a provisioned Grafana loads (unique uid and panel ids, every panel and query
on the ${DS_PROMETHEUS} datasource variable that defaults to the provisioned
uid), in the form Grafana 12 writes for the current schemaVersion; every query
parses as PromQL; every panel says its unit (fieldConfig.defaults.unit, a
Grafana unit id) and what it shows (a description).

They are one path, not islands: every link to another dashboard (dashboard
links, panel links, data links on a table row or a drawn series) names a uid
that exists and carries the drive's serial and the time range, so a drive
leads from the fleet to its own view, its soak runs and its workloads, and
back. The workloads dashboard is chosen by drive too (a `serial` variable
that every query uses), and every dashboard that draws a drive's temperature
marks its thermal throttling with an annotation.

Grafana itself is not packaged for Debian, so no test loads the files into a
running Grafana; the form is checked against Grafana's dashboard migrations.
"""
import json
import os
import re
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from grafana_files import (DASHBOARDS, DS_VAR, GRAFANA, GRAFANA_UNITS, all_panels, annotation_queries,  # noqa: E402
                           dashboard_links, dashboard_queries, grafana_substituted, metric_names, promtool,
                           selectors)

# The schemaVersion Grafana 12 writes: its migrations up to it make refresh a
# string (40), drop timepicker.time_options (41) and hide from tooltips what
# is hidden from the visualization (42).
SCHEMA_VERSION = 42
# Grafana's own React visualizations. The Angular ones (graph, singlestat,
# table-old, the old piechart and worldmap plugins) no longer load in
# Grafana 11 and later.
PANEL_TYPES = {"row", "timeseries", "stat", "table", "state-timeline", "status-history", "bargauge", "gauge",
               "heatmap", "histogram", "barchart", "piechart", "text", "xychart", "trend"}
# How a link carries the drive: the table row's serial field, the drawn
# series' serial label, or the serial variable (a repeated row's own value).
SERIAL_VALUES = ("${__data.fields.serial}", "${__field.labels.serial}", "${serial}")
THROTTLE_METRICS = re.compile(r"^nvme_thermal_(throttling|throttle_\w+)$")


def load_all():
    out = {}
    for path in DASHBOARDS:
        with open(path) as f:
            d = json.load(f)
        out[d["uid"]] = (os.path.basename(path), d)
    return out


def variables(dash):
    return {v["name"]: v for v in dash["templating"]["list"]}


def link_problems(dash, dashboards, where, panel, link):
    """What is wrong with one link: it must open a dashboard that exists by
    its uid, for the same drive and time range."""
    m = re.fullmatch(r"/d/([a-zA-Z0-9_-]+)(?:/[a-z0-9-]*)?(?:\?(.*))?", link.get("url", ""))
    if link.get("type") == "dashboards":
        return [f"{where} {link['title']!r}: a link by tag; name the dashboard's uid (type link)"]
    if not m:
        return [f"{where} {link.get('title')!r}: {link.get('url')!r} is not a link to a dashboard (/d/UID)"]
    target, query = m.group(1), m.group(2) or ""
    bad = []
    if target not in dashboards:
        return [f"{where} {link['title']!r}: no dashboard has uid {target!r}"]
    if "serial" not in variables(dashboards[target][1]):
        bad.append(f"{where} {link['title']!r}: {target} has no serial variable to receive the drive")
    if panel is None:  # a dashboard link: the dashboard's own variables and time range go with it
        if not (link.get("includeVars") and "serial" in variables(dash)):
            bad.append(f"{where} {link['title']!r}: does not carry the serial (includeVars and a serial variable)")
        if not link.get("keepTime"):
            bad.append(f"{where} {link['title']!r}: does not keep the time range (keepTime)")
        return bad
    params = query.split("&")
    carried = [v for v in SERIAL_VALUES if f"var-serial={v}" in params]
    if len(carried) != 1:
        bad.append(f"{where} {link['title']!r}: {link['url']!r} carries no var-serial={' or '.join(SERIAL_VALUES)}")
    elif carried[0] == "${__data.fields.serial}" and panel["type"] != "table":
        bad.append(f"{where} {link['title']!r}: a row's fields only exist in a table")
    elif carried[0] == "${serial}" and not in_repeated_row(dash, panel):
        bad.append(f"{where} {link['title']!r}: ${{serial}} is one drive only in a row repeated by serial")
    if "${__url_time_range}" not in params:
        bad.append(f"{where} {link['title']!r}: {link['url']!r} does not keep the time range (${{__url_time_range}})")
    return bad


def in_repeated_row(dash, panel):
    """Whether panel lies under a row repeated by serial (rows own the panels below them)."""
    row = None
    for p in sorted(dash["panels"], key=lambda p: (p["gridPos"]["y"], p["gridPos"]["x"])):
        if p["type"] == "row":
            row = p
            if panel in p.get("panels", []):
                return p.get("repeat") == "serial"
        elif p is panel:
            return row is not None and row.get("repeat") == "serial"
    return False


class DashboardJsonTest(unittest.TestCase):
    def provisioned_uid(self):
        with open(os.path.join(GRAFANA, "provisioning", "datasources", "nvmond.yml")) as f:
            ds = yaml.safe_load(f)["datasources"]
        self.assertEqual(len(ds), 1)
        self.assertEqual(ds[0]["type"], "prometheus")
        return ds[0]["uid"]

    def test_dashboard_provider_loads_json_files(self):
        with open(os.path.join(GRAFANA, "provisioning", "dashboards", "nvmond.yml")) as f:
            doc = yaml.safe_load(f)
        self.assertEqual(doc["apiVersion"], 1)
        (p,) = doc["providers"]
        self.assertEqual(p["type"], "file")
        self.assertTrue(p["options"]["path"])

    def test_dashboards_are_grafana_json(self):
        uid = self.provisioned_uid()
        uids = set()
        for path in DASHBOARDS:
            with self.subTest(dashboard=os.path.basename(path)):
                with open(path) as f:
                    d = json.load(f)
                self.assertIsInstance(d["schemaVersion"], int)
                self.assertGreaterEqual(d["schemaVersion"], 30)
                self.assertRegex(d["uid"], r"^[a-zA-Z0-9_-]{1,40}$")
                self.assertNotIn(d["uid"], uids)
                uids.add(d["uid"])
                self.assertTrue(d["title"])
                self.assertNotIn("id", d, "a provisioned dashboard must not carry a database id")
                dsvar = [v for v in d["templating"]["list"] if v["name"] == "DS_PROMETHEUS"]
                self.assertEqual(len(dsvar), 1, "needs a DS_PROMETHEUS datasource variable")
                self.assertEqual(dsvar[0]["type"], "datasource")
                self.assertEqual(dsvar[0]["query"], "prometheus")
                self.assertEqual(dsvar[0]["current"]["value"], uid, "must default to the provisioned datasource")
                for v in d["templating"]["list"]:
                    if v["type"] == "query":
                        self.assertEqual(v["datasource"]["uid"], DS_VAR, v["name"])
                ids, cells = set(), []
                for p in d["panels"]:
                    self.assertNotIn(p["id"], ids, f'duplicate panel id {p["id"]}')
                    ids.add(p["id"])
                    g = p["gridPos"]
                    self.assertLessEqual(g["x"] + g["w"], 24, p["title"])
                    cells.append((g["x"], g["y"], g["w"], g["h"], p["title"]))
                    if p["type"] == "row":
                        continue
                    self.assertEqual(p["datasource"], {"type": "prometheus", "uid": DS_VAR}, p["title"])
                    self.assertTrue(p["targets"], f'panel "{p["title"]}" has no query')
                    refs = [t["refId"] for t in p["targets"]]
                    self.assertEqual(len(refs), len(set(refs)), p["title"])
                    for t in p["targets"]:
                        self.assertEqual(t["datasource"]["uid"], DS_VAR, p["title"])
                        self.assertTrue(t["expr"].strip(), p["title"])
                for i, a in enumerate(cells):
                    for b in cells[i + 1:]:
                        overlap = a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
                        self.assertFalse(overlap, f"panels overlap: {a[4]!r} and {b[4]!r}")

    def test_json_is_what_grafana_writes_for_the_current_schema(self):
        bad = []
        for name, d in load_all().values():
            if d["schemaVersion"] != SCHEMA_VERSION:
                bad.append(f"{name}: schemaVersion {d['schemaVersion']}, Grafana writes {SCHEMA_VERSION}")
            if not isinstance(d.get("refresh"), str):
                bad.append(f"{name}: refresh must be a string")
            if "time_options" in d.get("timepicker", {}):
                bad.append(f"{name}: timepicker.time_options is gone")
            for p in all_panels(d):
                where = f'{name}: panel "{p["title"]}"'
                if p["type"] not in PANEL_TYPES:
                    bad.append(f"{where}: type {p['type']!r} is not one of Grafana's current visualizations")
                if p["type"] == "row":
                    continue
                fc = p.get("fieldConfig", {})
                if "displayMode" in fc.get("defaults", {}).get("custom", {}):
                    bad.append(f"{where}: custom.displayMode is custom.cellOptions now")
                legend = p.get("options", {}).get("legend")
                if isinstance(legend, bool) or (isinstance(legend, dict) and legend.get("displayMode") == "hidden"):
                    bad.append(f"{where}: a hidden legend is showLegend: false")
                for o in fc.get("overrides", []):
                    for prop in o["properties"]:
                        if prop["id"] == "custom.hideFrom" and prop["value"].get("viz") and not prop["value"].get("tooltip"):
                            bad.append(f"{where}: hidden from the visualization but not from the tooltip")
                        if prop["id"] == "custom.displayMode":
                            bad.append(f"{where}: override custom.displayMode is custom.cellOptions now")
            for a in d["annotations"]["list"]:
                if a.get("datasource", {}).get("type") != "prometheus":
                    continue
                # Grafana moves a Prometheus annotation's query into target on load.
                if "expr" in a or "step" in a or not a.get("target", {}).get("expr") or not a["target"].get("refId"):
                    bad.append(f"{name}: annotation {a['name']!r}: the query belongs in target {{expr, interval, refId}}")
        self.assertFalse(bad, "\n".join(bad))

    def test_every_panel_says_what_it_shows(self):
        # Rows have no description in Grafana; every panel under them has one.
        missing = [f'{name}: panel "{p["title"]}"' for name, d in load_all().values()
                   for p in all_panels(d) if p["type"] != "row" and not p.get("description", "").strip()]
        self.assertFalse(missing, "panels without a description:\n" + "\n".join(missing))

    def test_links_open_a_dashboard_that_exists_for_the_same_drive_and_time(self):
        dashboards = load_all()
        bad, count = [], 0
        for name, d in dashboards.values():
            for where, panel, link in dashboard_links(d):
                count += 1
                bad += link_problems(d, dashboards, f"{name}: {where}", panel, link)
        self.assertGreater(count, 0)
        self.assertFalse(bad, "\n".join(bad))

    def test_links_lead_from_the_fleet_to_a_drive_its_soak_runs_and_workloads_and_back(self):
        dashboards = load_all()
        found = set()
        for uid, (name, d) in dashboards.items():
            for where, panel, link in dashboard_links(d):
                target = re.match(r"/d/([a-zA-Z0-9_-]+)", link.get("url", ""))
                if target:
                    found.add((uid, target.group(1), "dashboard" if panel is None else panel["type"]))

        def linked(src, dst, kinds):
            return any(s == src and t == dst and k in kinds for s, t, k in found)
        drawn = {"timeseries", "state-timeline", "bargauge", "heatmap", "stat", "table"}
        want = [
            # A row of the fleet's drive table: that drive's own view (the fleet
            # dashboard for its serial), its soak runs, its workloads.
            ("nvmond-fleet", "nvmond-fleet", {"table"}),
            ("nvmond-fleet", "nvmond-soak", {"table"}),
            ("nvmond-fleet", "nvmond-workloads", {"table"}),
            # A drive's line on the fleet (its temperature): the same.
            ("nvmond-fleet", "nvmond-soak", {"timeseries"}),
            # Back from a soak run's row and from a workload's series to the drive.
            ("nvmond-soak", "nvmond-fleet", drawn),
            ("nvmond-workloads", "nvmond-fleet", drawn),
            ("nvmond-workloads", "nvmond-soak", drawn),
        ] + [(a, b, {"dashboard"}) for a in dashboards for b in dashboards if a != b]
        missing = [f"{a} -> {b} from a {'/'.join(sorted(k))}" for a, b, k in want if not linked(a, b, k)]
        self.assertFalse(missing, "no serial-carrying link:\n" + "\n".join(missing))

    def test_workloads_are_chosen_by_drive(self):
        (name, d), = [v for v in load_all().values() if v[1]["uid"] == "nvmond-workloads"]
        v = variables(d).get("serial")
        self.assertIsNotNone(v, f"{name}: no serial variable")
        self.assertEqual(v["type"], "query")
        self.assertRegex(v["query"]["query"], r"^label_values\(nvmond_workload_\w+\{.*\},\s*serial\)$")
        self.assertTrue(v["includeAll"] and v["multi"] and v["allValue"] == ".*",
                        "All must match workloads on files too (no serial label)")
        self.assertIn('serial=~"$serial"', variables(d)["workload"]["query"]["query"], "workloads of the chosen drives")
        # Every selector of a series nvmond exports (recorded series,
        # named with a colon, carry no drive) is narrowed to the chosen drives.
        unfiltered = []
        for where, expr in dashboard_queries(d):
            if where == 'variable "serial"':
                continue
            for metric, matchers in selectors(expr):
                if metric and ":" not in metric and ("serial", "=~", "$serial") not in matchers:
                    unfiltered.append(f"{where}: {metric}")
        self.assertFalse(unfiltered, "selectors not narrowed by serial:\n" + "\n".join(unfiltered))

    def test_every_temperature_panel_shows_throttle_annotations(self):
        missing = []
        for name, d in load_all().values():
            drawn = [p["title"] for p in all_panels(d)
                     if any("nvme_temperature_celsius" in metric_names(t["expr"]) for t in p.get("targets", []))]
            if not drawn:
                continue
            marks = [a for a, expr in annotation_queries(d)
                     if a.get("enable") and any(THROTTLE_METRICS.match(m) for m in metric_names(expr))
                     and any(("serial", "=~", "$serial") in ms for n, ms in selectors(expr) if n and THROTTLE_METRICS.match(n))]
            if not marks:
                missing += [f'{name}: panel "{t}"' for t in drawn]
        self.assertFalse(missing, "temperature drawn without a throttle annotation for the chosen drives:\n"
                         + "\n".join(missing))

    def test_every_dashboard_query_parses(self):
        # promtool parses every expression of a rule file: each query, with
        # its Grafana variables substituted, becomes one recording rule.
        queries = []
        for path in DASHBOARDS:
            with open(path) as f:
                queries += [(f"{os.path.basename(path)}: {where}", e) for where, e in dashboard_queries(json.load(f))]
        self.assertGreater(len(queries), 50)
        with tempfile.TemporaryDirectory() as tmp:
            for i, (where, expr) in enumerate(queries):
                path = os.path.join(tmp, f"q{i}.yml")
                with open(path, "w") as f:
                    yaml.safe_dump({"groups": [{"name": "q", "rules": [
                        {"record": "dashboard:query", "expr": grafana_substituted(expr)}]}]}, f)
                r = promtool("check", "rules", path)
                self.assertEqual(r.returncode, 0, f"{where}: {grafana_substituted(expr)}\n{r.stdout}")

    def test_every_panel_has_a_unit(self):
        missing = []
        for path in DASHBOARDS:
            with open(path) as f:
                d = json.load(f)

            def walk(panels):
                for p in panels:
                    walk(p.get("panels", []))
                    if p["type"] == "row":
                        continue
                    where = f'{os.path.basename(path)}: panel "{p["title"]}"'
                    unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit")
                    if not unit:
                        missing.append(f"{where}: no fieldConfig.defaults.unit")
                    elif unit not in GRAFANA_UNITS:
                        missing.append(f"{where}: unit {unit!r} is not a Grafana unit id")
                    for o in p.get("fieldConfig", {}).get("overrides", []):
                        for prop in o["properties"]:
                            if prop["id"] == "unit" and prop["value"] not in GRAFANA_UNITS:
                                missing.append(f"{where}: override unit {prop['value']!r} is not a Grafana unit id")
            walk(d["panels"])
        self.assertFalse(missing, "\n".join(missing))


if __name__ == "__main__":
    unittest.main()
