"""Tier 2: the Prometheus rules and Grafana dashboards in grafana/.

- `promtool check rules` / `check config` are clean and `promtool test rules`
  passes (the unit tests show every alert firing and not firing);
- the dashboards are Grafana dashboard JSON that a provisioned Grafana loads
  (schemaVersion, unique uid and panel ids, every panel and query on the
  ${DS_PROMETHEUS} datasource variable that defaults to the provisioned uid),
  and every panel says its unit (fieldConfig.defaults.unit, a Grafana unit id);
- every metric name in the rules and dashboards is one nvmond really exports:
  the built daemon runs on simulated drives (an OCP datacenter drive that
  throttles, a heatsink drive, a hung drive for collection errors) and is
  scraped; workload and soak series, which need a running job or soak, are
  checked against the names documented in workloads/workload_metrics.hpp and
  daemon/soak_metrics.hpp. Label matchers with a
  fixed value (window="7d", bit="pmr", ...) must match a scraped series.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR, Daemon, config, parse, sim, table, wait_for  # noqa: E402

GRAFANA = os.path.join(SOURCE_DIR, "grafana")
RULE_FILES = sorted(glob.glob(os.path.join(GRAFANA, "rules", "*.yml")))
RULE_TESTS = sorted(glob.glob(os.path.join(GRAFANA, "rules", "tests", "*.yml")))
DASHBOARDS = sorted(glob.glob(os.path.join(GRAFANA, "dashboards", "*.json")))
DS_VAR = "${DS_PROMETHEUS}"
# Grafana unit ids the dashboards may use (a typo renders as a plain number
# with the typo appended); extend from Grafana's unit picker when needed.
GRAFANA_UNITS = {
    "none", "short", "percent", "percentunit", "s", "ms", "µs", "ns", "d", "h", "m", "dtdurations",
    "celsius", "bytes", "decbytes", "Bps", "binBps", "iops", "ops", "reqps", "wps", "rps",
    "dateTimeAsIso", "dateTimeFromNow", "bool", "bool_on_off", "string",
}

SIM_CONFIG = config(
    # One hour of drive time per wall minute: the datacenter drive throttles
    # within seconds, so the throttle series have values.
    table("[clock]", mode="accelerated", factor=60),
    sim("dc0", "RULES-DC", "datacenter", write_rate="1000MB"),
    sim("hs0", "RULES-HS", "consumer-heatsink", write_rate="150MB"),
    sim("stuck", "RULES-HANG", "generic", fault="hang", hang="5s"),
    poll_interval="100ms", command_timeout="300ms")

# Series Prometheus makes itself.
PROMETHEUS_BUILTIN = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
# Labels Prometheus attaches to every scraped series.
TARGET_LABELS = {"instance", "job"}

PROMQL_WORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool",
    "offset", "inf", "nan",
}


def promtool(*args):
    return subprocess.run(["promtool", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120)


# ------------------------------------------------------------ PromQL parsing
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SELECTOR = re.compile(r"(" + _NAME + r")?\s*\{([^{}]*)\}")
_MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"')
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")


def selectors(expr):
    """[(metric or None, [(label, op, value)])] for every {...} selector."""
    return [(m.group(1), _MATCHER.findall(m.group(2))) for m in _SELECTOR.finditer(expr)]


def metric_names(expr):
    """Metric names in one PromQL expression (functions and keywords removed)."""
    names = {m for m, _ in selectors(expr) if m}
    rest = _SELECTOR.sub(lambda m: " " + (m.group(1) or "") + " ", expr)
    rest = _STRING.sub(" ", rest)
    rest = _GROUPING.sub(" ", rest)
    rest = re.sub(r"\[[^\]]*\]", " ", rest)  # ranges and subqueries
    rest = re.sub(r"\$\{?\w+\}?", " ", rest)  # Grafana variables
    for m in re.finditer(r"(?<![\w.:])(" + _NAME + r")(\s*\()?", rest):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in PROMQL_WORDS or re.fullmatch(r"\d+[smhdwy]?", word):
            continue
        names.add(word)
    return names


def grafana_substituted(expr):
    """expr as Grafana sends it with "All" chosen for every variable."""
    expr = re.sub(r"\$(__rate_interval|\{__rate_interval\})", "4m", expr)
    expr = re.sub(r"\$(__interval|\{__interval\})", "1m", expr)
    return re.sub(r"\$\{?\w+\}?", ".*", expr)


def rules():
    out = []
    for path in RULE_FILES:
        with open(path) as f:
            doc = yaml.safe_load(f)
        for group in doc["groups"]:
            out.extend((path, r) for r in group["rules"])
    return out


def dashboard_queries(dash):
    """(where, expr) of every panel target, annotation query and query variable."""
    out = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                out.append((f'panel "{p.get("title")}" {t.get("refId")}', t["expr"]))
            walk(p.get("panels", []))

    walk(dash["panels"])
    out += [(f'annotation "{a["name"]}"', a["expr"]) for a in dash.get("annotations", {}).get("list", []) if "expr" in a]
    for v in dash["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q)
            out.append((f'variable "{v["name"]}"', m.group(1) if m else q))
    return out


# Headers whose comment documents series only a running job or soak exports:
# "//   name{labels}   kind ...".
DOCUMENTED_HEADERS = [os.path.join(SOURCE_DIR, "workloads", "workload_metrics.hpp"),
                      os.path.join(SOURCE_DIR, "daemon", "soak_metrics.hpp")]


def documented_series():
    """{exposition name: documented label names} from DOCUMENTED_HEADERS."""
    out = {}
    for path in DOCUMENTED_HEADERS:
        with open(path) as f:
            text = f.read()
        for m in re.finditer(r"^//\s+(nvmond_(?:workload|soak)_\w+)\{([^}]*)\}\s+(\w+)", text, re.M):
            name, labels, kind = m.groups()
            labels = set(labels.split(","))
            if name.startswith("nvmond_workload_"):
                labels.add("serial")  # "Every series also carries `serial`" when the target is a drive
            out[name] = labels
            if kind == "histogram":
                out[name + "_bucket"] = labels | {"le"}
                out[name + "_sum"] = out[name + "_count"] = labels
            if kind == "summary":
                out[name + "_sum"] = out[name + "_count"] = labels - {"quantile"}
    return out


class RulesTest(unittest.TestCase):
    def test_files_exist(self):
        self.assertTrue(RULE_FILES, "no grafana/rules/*.yml")
        self.assertTrue(RULE_TESTS, "no grafana/rules/tests/*.yml")
        self.assertEqual([os.path.basename(p) for p in DASHBOARDS],
                         ["nvmond-fleet.json", "nvmond-soak.json", "nvmond-workloads.json"])

    def test_promtool_check_rules_is_clean(self):
        r = promtool("check", "rules", *RULE_FILES)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertNotIn("WARNING", r.stdout.upper(), r.stdout)

    def test_promtool_unit_tests_pass(self):
        r = promtool("test", "rules", *RULE_TESTS)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertNotIn("FAILED", r.stdout, r.stdout)

    def test_prometheus_example_configs_are_valid(self):
        # The single-host example, and the fleet's shard (file_sd, fleet
        # rules) and global (federation) examples.
        for name in ("prometheus.yml", "fleet/prometheus.yml", "fleet/global.yml"):
            r = promtool("check", "config", os.path.join(GRAFANA, name))
            self.assertEqual(r.returncode, 0, f"{name}: {r.stdout}")
            self.assertIn("SUCCESS", r.stdout, name)

    def test_every_alert_is_labelled_annotated_and_tested(self):
        tested = set()
        for path in RULE_TESTS:
            with open(path) as f:
                for case in yaml.safe_load(f)["tests"]:
                    for a in case.get("alert_rule_test", []):
                        if a.get("exp_alerts"):
                            tested.add(a["alertname"])
        for path, r in rules():
            if "alert" not in r:
                continue
            name = r["alert"]
            self.assertIn(r.get("labels", {}).get("severity"), ("critical", "warning"), name)
            for key in ("summary", "description"):
                self.assertIn("$labels.", r.get("annotations", {}).get(key, ""), f"{name}: {key} names no label")
            where = r["annotations"]["summary"] + r["annotations"]["description"]
            if "nvme_" in r["expr"]:
                self.assertIn("$labels.serial", where, f"{name} does not name the drive")
            self.assertIn(name, tested, f"{name} has no promtool test showing it fire")

    def test_workloads_are_told_apart_by_workload_not_job(self):
        # nvmond names a workload in its `workload` label; `job` on those
        # series is Prometheus's scrape job, the same for every workload, so
        # matching, grouping or naming workloads by it merges them.
        wrong = [
            (re.compile(r"\$labels\.job\b"), "names the workload by $labels.job"),
            (re.compile(r"\{\{\s*job\s*\}\}"), "legend {{job}}"),
            (re.compile(r"\$\{?job\b"), "variable $job"),
            (re.compile(r"\bjob\s*(=~|!~|!=|=)\s*(\\?\"|')?%[qsv]"), "matches job against a workload name"),
            (re.compile(r",\s*job\s*\)"), "label_values(..., job)"),
        ]
        grouping = re.compile(r"\b(?:on|by)\s*\(([^()]*)\)")
        texts, bad = [], []
        for path, r in rules():
            name = r.get("alert") or r.get("record")
            if "workload" not in name and "workload" not in r["expr"]:
                continue
            texts.append((name, r["expr"]))
            texts += [(f"{name} {k}", v) for k, v in r.get("annotations", {}).items()]
            if "record" in r and r.get("labels") and ("workload" not in r["labels"] or "job" in r["labels"]):
                bad.append(f"{name}: labels {sorted(r['labels'])} (want workload, not job)")
        for path in DASHBOARDS:
            with open(path) as f:
                text = f.read()
            if "nvmond_workload" in text:
                texts.append((os.path.basename(path), text))
        self.assertTrue(texts)
        bad += [f"{where}: {why}" for where, text in texts for rx, why in wrong if rx.search(text)]
        for where, text in texts:
            for g in grouping.findall(text):
                labels = {l.strip() for l in g.split(",")}
                if "job" in labels and "workload" not in labels:
                    bad.append(f"{where}: groups workloads by ({g}) without workload")
        self.assertFalse(bad, "\n".join(bad))


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


class MetricNamesTest(unittest.TestCase):
    """Every metric the rules and dashboards query is exported by nvmond."""

    @classmethod
    def setUpClass(cls):
        cls.uses = []  # (where, expr)
        for path, r in rules():
            where = f'{os.path.basename(path)}: {r.get("alert") or r.get("record")}'
            cls.uses.append((where, r["expr"]))
            for text in r.get("annotations", {}).values():
                for q in re.findall(r'printf "((?:[^"\\]|\\.)*)"', text):
                    cls.uses.append((where + " (annotation query)", q.replace('\\"', '"')))
        for path in DASHBOARDS:
            with open(path) as f:
                for where, expr in dashboard_queries(json.load(f)):
                    cls.uses.append((f"{os.path.basename(path)}: {where}", expr))
        cls.recorded = {r["record"] for _, r in rules() if "record" in r}
        cls.documented = set(documented_series())

        used = {n for _, e in cls.uses for n in metric_names(e)}
        want = {n for n in used if ":" not in n and n not in PROMETHEUS_BUILTIN and n not in cls.documented}
        cls.d = Daemon(SIM_CONFIG).start()
        try:
            # Every name appears once the drives have been polled a few times
            # (analytics need two polls; throttle series a throttle).
            def scraped():
                text = cls.d.try_scrape()
                if text is None:
                    return None
                m = parse(text)
                names = {s.name for s in m}
                return m if want <= names else None
            try:
                cls.metrics = wait_for(scraped, 30, "every used metric name on /metrics")
            except AssertionError:
                cls.metrics = parse(cls.d.scrape())
        except BaseException:
            cls.d.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def test_parser_finds_names(self):
        # The extraction itself, on shapes used in the files.
        self.assertEqual(metric_names('sum by (instance, serial) (rate(nvme_a_total{x="y"}[5m])) > on(job) group_left() b:c'),
                         {"nvme_a_total", "b:c"})
        self.assertEqual(metric_names('(nvme_x{limit="warning"} > 0) - ignoring(limit, sensor) nvme_y'),
                         {"nvme_x", "nvme_y"})
        self.assertEqual(metric_names('histogram_quantile(0.99, sum by (le) (rate(h_bucket{workload=~"$workload"}[$__rate_interval])))'),
                         {"h_bucket"})

    def test_every_metric_name_is_exported(self):
        exported = {s.name for s in self.metrics}
        missing = []
        for where, expr in self.uses:
            for name in sorted(metric_names(expr)):
                if ":" in name:
                    if name not in self.recorded:
                        missing.append(f"{where}: {name} (no recording rule defines it)")
                elif name not in exported and name not in self.documented and name not in PROMETHEUS_BUILTIN:
                    missing.append(f"{where}: {name}")
        self.assertFalse(missing, "metrics not exported by nvmond:\n" + "\n".join(missing))

    def test_fixed_label_matchers_match_a_series(self):
        series = {}
        for s in self.metrics:
            for k, v in s.labels.items():
                series.setdefault((s.name, k), set()).add(v)
        bad = []
        for where, expr in self.uses:
            for name, matchers in selectors(expr):
                if not name or ":" in name or name in self.documented or name in PROMETHEUS_BUILTIN:
                    continue
                for label, op, val in matchers:
                    if label in TARGET_LABELS or "$" in val:
                        continue
                    values = series.get((name, label))
                    if values is None:
                        bad.append(f"{where}: {name} has no label {label}")
                    elif op == "=" and val not in values:
                        bad.append(f'{where}: {name}{{{label}="{val}"}} matches nothing ({sorted(values)})')
                    elif op == "=~" and not any(re.fullmatch(val, v) for v in values):
                        bad.append(f'{where}: {name}{{{label}=~"{val}"}} matches nothing')
        self.assertFalse(bad, "\n".join(bad))

    def test_workload_and_soak_matchers_use_documented_labels(self):
        # Workload and soak series are not scraped here (no job or soak
        # runs): their label names are checked against the documented ones.
        doc = documented_series()
        bad = []
        for where, expr in self.uses:
            for name, matchers in selectors(expr):
                if name not in doc:
                    continue
                allowed = doc[name] | TARGET_LABELS
                bad += [f"{where}: {name} has no label {l}" for l, _, _ in matchers if l not in allowed]
        self.assertFalse(bad, "\n".join(bad))

if __name__ == "__main__":
    unittest.main()
