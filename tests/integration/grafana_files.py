"""The Prometheus rules and Grafana dashboards in grafana/, read for the tests
of them (test_rules, test_dashboards, test_metric_names, test_soak_dashboard):
their files, their PromQL, and the metric names and labels in it."""
import glob
import os
import re
import subprocess

import yaml

from nvmond_harness import SOURCE_DIR

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


def all_panels(dash):
    """Every panel, rows' nested panels included."""
    out = []

    def walk(panels):
        for p in panels:
            out.append(p)
            walk(p.get("panels", []))

    walk(dash["panels"])
    return out


def annotation_queries(dash):
    """(annotation, expr) of every Prometheus annotation query: its expr is in
    `target`, where Grafana 11 and later keep it (older ones kept it beside)."""
    return [(a, a.get("target", {}).get("expr") or a.get("expr", "")) for a in dash.get("annotations", {}).get("list", [])
            if a.get("datasource", {}).get("type") == "prometheus"]


def panel_queries(dash):
    """(where, expr) of every panel target (rows' nested panels included) and annotation query."""
    out = [(f'panel "{p.get("title")}" {t.get("refId")}', t["expr"])
           for p in all_panels(dash) for t in p.get("targets", [])]
    out += [(f'annotation "{a["name"]}"', expr) for a, expr in annotation_queries(dash)]
    return out


def dashboard_links(dash):
    """(where, panel or None, link) of every link a dashboard has: its own
    links, panel links, and data links in field defaults and overrides."""
    out = [("dashboard link", None, link) for link in dash.get("links", [])]
    for p in all_panels(dash):
        where = f'panel "{p["title"]}"'
        out += [(f"{where} link", p, link) for link in p.get("links", [])]
        fc = p.get("fieldConfig", {})
        out += [(f"{where} data link", p, link) for link in fc.get("defaults", {}).get("links", [])]
        for o in fc.get("overrides", []):
            for prop in o["properties"]:
                if prop["id"] == "links":
                    out += [(f"{where} data link ({o['matcher']['options']})", p, link) for link in prop["value"]]
    return out


def dashboard_queries(dash):
    """(where, expr) of every panel target, annotation query and query variable."""
    out = panel_queries(dash)
    for v in dash["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q)
            out.append((f'variable "{v["name"]}"', m.group(1) if m else q))
    return out


# Headers whose comment documents series only a running job or soak exports:
# "//   name{labels}   kind ...".
DOCUMENTED_HEADERS = [os.path.join(SOURCE_DIR, "workloads", "workload_metrics.hpp"),
                      os.path.join(SOURCE_DIR, "soak", "soak_metrics.hpp")]


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
