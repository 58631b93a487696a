"""Tier 2: the dashboards in grafana/dashboards are Grafana dashboard JSON that
a provisioned Grafana loads (schemaVersion, unique uid and panel ids, every
panel and query on the ${DS_PROMETHEUS} datasource variable that defaults to
the provisioned uid), every query parses as PromQL, and every panel says its
unit (fieldConfig.defaults.unit, a Grafana unit id).
"""
import json
import os
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from grafana_files import (DASHBOARDS, DS_VAR, GRAFANA, GRAFANA_UNITS, dashboard_queries,  # noqa: E402
                           grafana_substituted, promtool)


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
