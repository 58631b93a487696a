"""Tier 2: every metric name in the rules and dashboards is one nvmond really
exports: the built daemon runs on simulated drives (an OCP datacenter drive
that throttles, a heatsink drive whose self-test failed, a hung drive for collection errors) and is
scraped; workload and soak series, which need a running job or soak, are
checked against the names documented in workloads/workload_metrics.hpp and
soak/soak_metrics.hpp. Label matchers with a fixed value (window="7d",
bit="pmr", ...) must match a scraped series.
"""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import Daemon, config, parse, sim, table, wait_for  # noqa: E402
from grafana_files import (DASHBOARDS, PROMETHEUS_BUILTIN, TARGET_LABELS, dashboard_queries,  # noqa: E402
                           documented_series, metric_names, rules, selectors)

SIM_CONFIG = config(
    # One hour of drive time per wall minute: the datacenter drive throttles
    # within seconds, so the throttle series have values.
    table("[clock]", mode="accelerated", factor=60),
    # Its OCP error recovery log holds a panic: NvmeDrivePanic's series exist.
    sim("dc0", "RULES-DC", "datacenter", write_rate="1000MB", ocp_panic=True),
    # Its newest self-test failed: NvmeSelfTestFailed's result matcher has a series.
    sim("hs0", "RULES-HS", "consumer-heatsink", write_rate="150MB", self_test_failure=True),
    # Every command of a poll hangs in turn, so one poll takes the hang times
    # the commands it sends (seven): short enough that the drive is
    # identified and then times out (the errors' series need a serial) well
    # within the wait below.
    sim("stuck", "RULES-HANG", "generic", fault="hang", hang="1s"),
    poll_interval="100ms", command_timeout="300ms")


def unmatched_label_matchers(metrics, uses, documented):
    """Label matchers with a fixed value (bit="pmr", result=~"failed.*") that
    no scraped series satisfies."""
    series = {}
    for s in metrics:
        for k, v in s.labels.items():
            series.setdefault((s.name, k), set()).add(v)
    bad = []
    for where, expr in uses:
        for name, matchers in selectors(expr):
            if not name or ":" in name or name in documented or name in PROMETHEUS_BUILTIN:
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
    return bad


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
            # Every name and fixed label value appears once the drives have
            # been polled a few times (analytics need two polls; throttle
            # series a throttle; the self-test result its log read).
            def scraped():
                text = cls.d.try_scrape()
                if text is None:
                    return None
                m = parse(text)
                names = {s.name for s in m}
                if not want <= names or unmatched_label_matchers(m, cls.uses, cls.documented):
                    return None
                return m
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
        bad = unmatched_label_matchers(self.metrics, self.uses, self.documented)
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
