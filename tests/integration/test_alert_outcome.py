"""Tier 2, slow (about 3 minutes): what the shipped alerts do to the person
holding the pager. nvmond runs the demo (examples/demo.toml: the datacenter
drive heating under its sequential-write job, the consumer drive under its
WSAT soak, the ageing heatsink drive with media errors, a failed self-test
and a degraded link) on a clock FACTOR times faster than wall time; a real
Prometheus (Debian's `prometheus`) scrapes it with the shipped rules and
sends to a real Alertmanager (Debian's `prometheus-alertmanager`) running
the shipped grafana/alertmanager.yml, whose receiver is a webhook this test
serves on 127.0.0.1.

The demo's timeline is compressed, not changed: the scrape and evaluation
intervals, every `for:`, range, offset and predict_linear horizon in the
rules and Alertmanager's group timings are divided by FACTOR, so Prometheus
sees the same samples per window and the same slopes per horizon as it would
in real time. Durations below are drive (demo) time.

Asserts, from Prometheus' API and the webhook's notifications:
- the datacenter drive's NvmeThermalThrottlingImminent fires at least 60 s
  before the drive starts throttling;
- no wear-out projection alert, pending or firing, in the first 10 minutes
  of the drives' life, although the daemon projects one within weeks;
- no notification carries two firing alerts of one drive and cause, and
  Alertmanager never holds two un-inhibited alerts of one drive and cause
  (the ladder's inhibition), while the pages that should come (throttling,
  the failed self-test) do.

Every wait polls an API against a deadline; every process is stopped on every
exit path. Loopback only.
"""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from collections import Counter

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR, Daemon, config, free_port, table, wait_for  # noqa: E402
from test_prometheus import PROMETHEUS, LocalServer, Prometheus  # noqa: E402

ALERTMANAGER = shutil.which("prometheus-alertmanager") or "/usr/bin/prometheus-alertmanager"
ALERTMANAGER_CONFIG = os.path.join(SOURCE_DIR, "grafana", "alertmanager.yml")
DEMO = os.path.join(SOURCE_DIR, "examples", "demo.toml")

# NVMOND_ALERT_FACTOR=1 runs the demo on the wall clock, as a person sees it
# (12 minutes); CI runs it compressed.
FACTOR = int(os.environ.get("NVMOND_ALERT_FACTOR", "5"))
DC, CONSUMER, HEATSINK = "SIMDC0001", "SIMCN0001", "SIMHS0001"
IMMINENT_LEAD_S = 60         # drive time between the imminent alert firing and throttle onset
YOUNG_S = 600                # no projection alert in the drives' first 10 minutes
RUN_S = 12 * 60              # drive time the test watches
PROJECTIONS = "NvmeProjectedWearout.*"

_DURATION = re.compile(r"(\d+)(ms|s|m|h|d|w|y)")
_UNIT_S = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
_DURATION_TEXT = r"(?:\d+(?:ms|s|m|h|d|w|y))+"


def seconds(text):
    return sum(int(n) * _UNIT_S[u] for n, u in _DURATION.findall(text))


def scaled(text):
    """A Prometheus duration divided by FACTOR, in whole milliseconds."""
    ms = round(seconds(text) * 1000 / FACTOR)
    return f"{max(1, ms)}ms" if seconds(text) else "0s"


# Numbers inside an alert's expression that are a time in seconds (divided
# by FACTOR) or a rate per second (multiplied by FACTOR): the rules cannot
# say so themselves. Each must be found, so a rewritten rule fails here
# instead of being compressed wrongly.
SECONDS_IN = {"NvmeThermalThrottlingImminent": r"(<=\s*)(\d+(?:\.\d+)?)(\s)"}
PER_SECOND_IN = {"NvmeTemperatureSensorStuck": r"(>\s*)(50e6)(\s)"}


def _compress_constants(text):
    blocks = re.split(r"(?m)^(?=\s+- (?:alert|record): )", text)
    out = []
    for block in blocks:
        m = re.match(r"\s+- alert: (\w+)", block)
        name = m.group(1) if m else None
        for table, scale in ((SECONDS_IN, 1 / FACTOR), (PER_SECOND_IN, FACTOR)):
            if name in table:
                block, n = re.subn(table[name], lambda c: f"{c.group(1)}{float(c.group(2)) * scale:g}{c.group(3)}", block)
                if n == 0:
                    raise AssertionError(f"{name}: no {table[name]} to compress any more; update this test's table")
        out.append(block)
    return "".join(out)


def compressed_rules(text):
    """The rule file with every duration (for:, group interval, range,
    subquery, offset), predict_linear's horizon and the constants above
    compressed by FACTOR."""
    text = _compress_constants(text)
    text = re.sub(r"^(\s+(?:for|interval): )(" + _DURATION_TEXT + r")\s*$",
                  lambda m: m.group(1) + scaled(m.group(2)), text, flags=re.M)
    text = re.sub(r"\[(" + _DURATION_TEXT + r")(?::(" + _DURATION_TEXT + r"))?\]",
                  lambda m: "[" + scaled(m.group(1)) + (":" + scaled(m.group(2)) if m.group(2) else "") + "]", text)
    text = re.sub(r"\boffset (" + _DURATION_TEXT + r")", lambda m: "offset " + scaled(m.group(1)), text)
    horizons = re.compile(r"(predict_linear\((?:[^()]|\([^()]*\))*?\],\s*)(\d+(?:\.\d+)?)(\s*\))")
    if len(horizons.findall(text)) != text.count("predict_linear("):
        raise AssertionError("a predict_linear horizon this test cannot compress: write it as a number of seconds")
    return horizons.sub(lambda m: f"{m.group(1)}{float(m.group(2)) / FACTOR:g}{m.group(3)}", text)


def demo_config():
    """examples/demo.toml on this test's port and state directory, on the
    accelerated clock: its own [daemon] table is replaced."""
    with open(DEMO) as f:
        text = f.read()
    rest = re.sub(r"^\[daemon\]\n(?:(?!\[).*\n)*", "", text, flags=re.M)
    clock = [table("[clock]", mode="accelerated", factor=FACTOR)] if FACTOR != 1 else []
    return config(*clock, rest)


def alertmanager_config(webhook_url):
    """The shipped example, its receiver pointed at `webhook_url`, its group
    timings compressed."""
    with open(ALERTMANAGER_CONFIG) as f:
        doc = yaml.safe_load(f)
    for r in doc["receivers"]:
        for w in r.get("webhook_configs", []):
            w["url"] = webhook_url
    route = doc["route"]
    for key in ("group_wait", "group_interval", "repeat_interval"):
        route[key] = scaled(route[key])
    return yaml.safe_dump(doc)


class Webhook:
    """Alertmanager's receiver: every notification it posts, in order."""

    def __init__(self):
        self.notifications = []
        self.lock = threading.Lock()
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with hook.lock:
                    hook.notifications.append(json.loads(body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/nvmond"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def received(self):
        with self.lock:
            return list(self.notifications)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Alertmanager(LocalServer):
    name = "alertmanager"

    def __init__(self, workdir, webhook_url):
        self.dir = workdir
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.config = os.path.join(workdir, "alertmanager.yml")
        with open(self.config, "w") as f:
            f.write(alertmanager_config(webhook_url))
        self.log_path = os.path.join(workdir, "alertmanager.log")
        self.proc = None

    def start(self):
        # No cluster listener: a lone instance, nothing bound but the API.
        return self.launch(
            [ALERTMANAGER, f"--config.file={self.config}", f"--storage.path={self.dir}/am",
             f"--web.listen-address=127.0.0.1:{self.port}", "--cluster.listen-address=", "--log.level=warn"])

    def active_alerts(self, inhibited):
        text = self.try_get(f"/api/v2/alerts?active=true&silenced=false&inhibited={'true' if inhibited else 'false'}")
        return json.loads(text) if text else []


class CompressedPrometheus(Prometheus):
    """The shipped rules, compressed; alerts sent to `alertmanager_port`."""

    def __init__(self, workdir, nvmond_port, alertmanager_port):
        super().__init__(workdir, nvmond_port, rules_text=compressed_rules)
        with open(self.config) as f:
            doc = yaml.safe_load(f)
        interval = scaled(f"{5}s")  # the demo's poll interval
        doc["global"] = {"scrape_interval": interval, "scrape_timeout": interval, "evaluation_interval": interval}
        doc["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": [f"127.0.0.1:{alertmanager_port}"]}]}]}
        with open(self.config, "w") as f:
            yaml.safe_dump(doc, f)

    def first_time(self, query, start, end):
        """Wall time of the first sample of `query` in [start, end], or None."""
        data = self.api("query_range", query=query, start=start, end=end, step=0.5)
        times = [float(t) for s in (data or {}).get("result", []) for t, _ in s["values"]]
        return min(times) if times else None


def causes(alerts, key=lambda a: a):
    """Counter of (serial, cause) over alerts (Alertmanager's or the webhook's)."""
    return Counter((key(a)["labels"].get("serial"), key(a)["labels"].get("cause")) for a in alerts)


@unittest.skipIf(os.environ.get("NVMOND_SANITIZED") in ("1", "ON", "TRUE", "true"),
                 "the rules' outcome does not depend on the daemon's memory safety; the plain build runs it")
class AlertOutcomeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for binary, package in ((PROMETHEUS, "prometheus"), (ALERTMANAGER, "prometheus-alertmanager")):
            if not os.path.exists(binary):
                raise unittest.SkipTest(f"{binary} is not installed (Debian package {package})")
        cls.tmp = tempfile.mkdtemp(prefix="nvmond-outcome-")
        cls.d = cls.p = cls.am = cls.hook = None
        try:
            cls.hook = Webhook()
            cls.am = Alertmanager(cls.tmp, cls.hook.url).start()
            cls.d = Daemon(demo_config(), workdir=cls.tmp)
            cls.p = CompressedPrometheus(cls.tmp, cls.d.port, cls.am.port)
            cls.p.start()
            cls.start = time.time()
            cls.d.start()
            cls.watch()
        except BaseException:
            cls.stop_all()
            raise

    @classmethod
    def watch(cls):
        """Runs the demo for RUN_S of drive time, recording how many
        un-inhibited alerts Alertmanager holds per drive and cause."""
        cls.worst_uninhibited = Counter()
        cls.end = cls.start + RUN_S / FACTOR
        while time.time() < cls.end:
            if cls.d.exited():
                raise AssertionError(f"nvmond exited:\n{cls.d.log_text()[-3000:]}")
            for key, n in causes(cls.am.active_alerts(inhibited=False)).items():
                cls.worst_uninhibited[key] = max(cls.worst_uninhibited[key], n)
            time.sleep(0.5)  # sampling period of the watch, not synchronisation

    @classmethod
    def stop_all(cls):
        for part in (cls.p, cls.am, cls.d, cls.hook):
            try:
                if part:
                    part.stop()
            except Exception:  # noqa: BLE001 - the others must still stop
                pass
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def tearDownClass(cls):
        cls.stop_all()

    def diagnose(self):
        alerts = self.p.api("alerts") or {}
        return (f"\n--- prometheus alerts ---\n{json.dumps(alerts.get('alerts', []), indent=1)[-4000:]}"
                f"\n--- notifications ---\n{json.dumps(self.hook.received(), indent=1)[-4000:]}"
                f"\n--- prometheus log ---\n{self.p.log_text()[-2000:]}"
                f"\n--- alertmanager log ---\n{self.am.log_text()[-2000:]}")

    def test_imminent_fires_a_minute_before_the_datacenter_drive_throttles(self):
        onset = self.p.first_time(f'nvme_thermal_throttling{{serial="{DC}"}} == 1', self.start, self.end)
        self.assertIsNotNone(onset, f"{DC} never throttled in {RUN_S} s" + self.diagnose())
        imminent = self.p.first_time(
            f'ALERTS{{alertname="NvmeThermalThrottlingImminent",alertstate="firing",serial="{DC}"}}',
            self.start, self.end)
        self.assertIsNotNone(imminent, f"NvmeThermalThrottlingImminent never fired for {DC}" + self.diagnose())
        lead = (onset - imminent) * FACTOR
        self.assertGreaterEqual(lead, IMMINENT_LEAD_S,
                                f"imminent fired {lead:.0f} s of drive time before the throttle" + self.diagnose())

    def test_no_projection_alert_in_the_drives_first_ten_minutes(self):
        young_end = self.start + YOUNG_S / FACTOR
        # The daemon does project: a few minutes of the demo's writes put
        # the datacenter drive's wear-out within weeks, the guard is what
        # keeps it quiet.
        remaining = self.p.api("query", query=f'nvme:wearout_remaining_days{{serial="{DC}"}}', time=young_end)
        self.assertTrue(remaining and remaining["result"], "no projection for the datacenter drive")
        self.assertLess(float(remaining["result"][0]["value"][1]), 180)
        first = self.p.first_time(f'ALERTS{{alertname=~"{PROJECTIONS}"}}', self.start, young_end)
        self.assertIsNone(first, "a wear-out projection alert in the first 10 minutes" + self.diagnose())

    def test_one_notification_per_drive_per_cause(self):
        notifications = self.hook.received()
        firing = [a for n in notifications for a in n["alerts"] if a["status"] == "firing"]
        self.assertTrue(firing, "no notification reached the webhook" + self.diagnose())
        paged = {(a["labels"].get("serial"), a["labels"]["alertname"]) for a in firing}
        # The pages the demo must raise do arrive ...
        self.assertIn((DC, "NvmeThermalThrottling"), paged, self.diagnose())
        self.assertIn((HEATSINK, "NvmeSelfTestFailed"), paged, self.diagnose())
        # ... one alert per drive and cause in each: a hot drive's throttling,
        # warning bit and "near the limit", or a drive's error log and media
        # error count, never travel together ...
        for n in notifications:
            doubled = {k: c for k, c in causes([a for a in n["alerts"] if a["status"] == "firing"]).items() if c > 1}
            self.assertFalse(doubled, f"one notification, several alerts of one cause: {doubled}" + self.diagnose())
        # ... and the lower rungs stay inhibited while a higher one fires:
        # the media error count under the failed self-test, for one.
        doubled = {k: n for k, n in self.worst_uninhibited.items() if n > 1}
        self.assertFalse(doubled, f"un-inhibited alerts of one drive and cause at once: {doubled}" + self.diagnose())
        inhibited = {(a["labels"].get("serial"), a["labels"]["alertname"])
                     for a in self.am.active_alerts(inhibited=True)
                     if a.get("status", {}).get("inhibitedBy")}
        self.assertIn((HEATSINK, "NvmeMediaErrorsIncreasing"), inhibited, self.diagnose())


if __name__ == "__main__":
    unittest.main()
