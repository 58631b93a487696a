"""Tier 2: the Prometheus rules in grafana/rules: `promtool check rules` /
`check config` are clean and `promtool test rules` passes (the unit tests show
every alert firing and not firing); every alert is labelled, annotated and
tested; workloads are told apart by `workload`, never by the scrape `job`.
The dashboards are test_dashboards; the names they and the rules query,
test_metric_names.
"""
import os
import re
import sys
import unittest

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from grafana_files import (DASHBOARDS, GRAFANA, RULE_FILES, RULE_TESTS, promtool,  # noqa: E402
                           rules)


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


if __name__ == "__main__":
    unittest.main()
