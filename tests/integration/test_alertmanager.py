"""Tier 2: grafana/alertmanager.yml, the Alertmanager example shipped beside
the rules: `amtool check-config` passes it, every alert in grafana/rules
sits on its cause's ladder (a `cause`, a one-digit `rung` unique in that
cause, a severity that never drops as the rung rises), and the example's
inhibit rules silence every lower rung by every higher one on the same drive
and cause, and never the other way round. The real server's behaviour on a
running daemon is test_alert_outcome."""
import os
import re
import shutil
import subprocess
import sys
import unittest
from collections import defaultdict

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from grafana_files import GRAFANA, rules  # noqa: E402

ALERTMANAGER_CONFIG = os.path.join(GRAFANA, "alertmanager.yml")
AMTOOL = shutil.which("amtool")
SEVERITY_ORDER = {"warning": 0, "critical": 1}
_MATCHER = re.compile(r'^\s*(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$')


def matches(matchers, labels):
    """Whether an alert with `labels` satisfies every Alertmanager matcher."""
    for text in matchers:
        m = _MATCHER.match(text)
        assert m, f"matcher not understood: {text}"
        name, op, value = m.groups()
        have = labels.get(name, "")
        ok = {"=": have == value, "!=": have != value,
              "=~": re.fullmatch(value, have) is not None, "!~": re.fullmatch(value, have) is None}[op]
        if not ok:
            return False
    return True


def ladders():
    """{cause: [(rung, severity, alertname)]} of every alert in the rules."""
    out = defaultdict(list)
    for _, r in rules():
        if "alert" in r:
            labels = r.get("labels", {})
            out[labels.get("cause")].append((labels.get("rung"), labels.get("severity"), r["alert"]))
    return out


def inhibited_by(config, source, target):
    """The inhibit rules under which an alert labelled `source` silences one
    labelled `target` (the `equal` labels taken as equal)."""
    return [r for r in config["inhibit_rules"]
            if matches(r.get("source_matchers", []), source) and matches(r.get("target_matchers", []), target)]


class AlertmanagerExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(ALERTMANAGER_CONFIG) as f:
            cls.config = yaml.safe_load(f)

    def test_amtool_check_config_passes(self):
        if AMTOOL is None:
            self.skipTest("amtool is not installed (Debian package prometheus-alertmanager)")
        r = subprocess.run([AMTOOL, "check-config", ALERTMANAGER_CONFIG], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("SUCCESS", r.stdout)

    def test_notifications_are_grouped_by_drive_and_cause(self):
        self.assertEqual(set(self.config["route"]["group_by"]), {"serial", "cause"})

    def test_every_alert_sits_on_its_causes_ladder(self):
        bad = []
        for cause, steps in ladders().items():
            if cause is None:
                bad += [f"{name}: no cause label" for _, _, name in steps]
                continue
            rungs = [rung for rung, _, _ in steps]
            bad += [f"{name}: rung {rung!r} is not one digit 1-9" for rung, _, name in steps
                    if not (isinstance(rung, str) and re.fullmatch(r"[1-9]", rung))]
            bad += [f"{cause}: rung {r} twice" for r in set(rungs) if rungs.count(r) > 1]
            for rung, sev, name in steps:
                for rung2, sev2, name2 in steps:
                    if str(rung2) > str(rung) and SEVERITY_ORDER[sev2] < SEVERITY_ORDER[sev]:
                        bad.append(f"{cause}: {name2} (rung {rung2}, {sev2}) above {name} (rung {rung}, {sev})")
        self.assertFalse(bad, "\n".join(bad))

    def test_each_higher_rung_inhibits_each_lower_one_of_its_cause_on_its_drive(self):
        bad = []
        for cause, steps in ladders().items():
            for rung, _, name in steps:
                for rung2, _, name2 in steps:
                    lower = {"alertname": name, "cause": cause, "rung": rung, "serial": "S"}
                    higher = {"alertname": name2, "cause": cause, "rung": rung2, "serial": "S"}
                    if rung2 > rung:
                        found = [r for r in inhibited_by(self.config, higher, lower)
                                 if {"serial", "cause"} <= set(r.get("equal", []))]
                        if not found:
                            bad.append(f"{cause}: {name2} (rung {rung2}) does not inhibit {name} (rung {rung})")
                    elif rung2 < rung and inhibited_by(self.config, higher, lower):
                        bad.append(f"{cause}: the lower {name2} inhibits {name}")
        self.assertFalse(bad, "\n".join(bad))

    def test_media_errors_page_once(self):
        # The drive's error log and its SMART media error count see the same
        # unrecovered reads: the error log's page silences the count's warning.
        (log,) = [r for _, r in rules() if r.get("alert") == "NvmeErrorLogMediaOrPathErrors"]
        (count,) = [r for _, r in rules() if r.get("alert") == "NvmeMediaErrorsIncreasing"]
        source = dict(log["labels"], alertname="NvmeErrorLogMediaOrPathErrors", serial="S")
        target = dict(count["labels"], alertname="NvmeMediaErrorsIncreasing", serial="S")
        self.assertEqual(log["labels"]["cause"], count["labels"]["cause"])
        self.assertTrue(inhibited_by(self.config, source, target))

    def test_a_cause_never_inhibits_another_drive_or_cause(self):
        for r in self.config["inhibit_rules"]:
            self.assertIn("serial" if "rung" in str(r) else "instance", r.get("equal", []), r)


if __name__ == "__main__":
    unittest.main()
