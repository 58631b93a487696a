"""Tier 2 with a real Prometheus server: nvmond on simulated drives, scraped
by /usr/bin/prometheus every second with grafana/rules loaded.

nvmond runs on an accelerated clock (60x), so the datacenter drive under
heavy background writes heats past its throttle point within seconds of wall
time; the heatsink drive under light writes stays cool. Prometheus evaluates
on wall time, so the rules are loaded with every `for:` shortened to 2s (the
expressions, labels and annotations are the shipped ones).

Proves: the example scrape config (grafana/prometheus.yml, only the target
and intervals replaced) works against the real daemon (target up, nvme_up per
serial through the PromQL API), the rules load in a real server,
NvmeThermalThrottling goes pending -> firing for the throttling drive while
the heatsink drive has no thermal alert, and a running workload's series keep
their `workload` label next to the scrape's own `job` (nothing is renamed to
exported_job).

Every wait polls the HTTP API against a deadline; both processes are killed on
every exit path. Loopback only.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR, Daemon, config, free_port, sim, table, wait_for  # noqa: E402

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
RULES_DIR = os.path.join(SOURCE_DIR, "grafana", "rules")
SHIPPED_CONFIG = os.path.join(SOURCE_DIR, "grafana", "prometheus.yml")

HOT, COOL, LOAD = "PROM-DC", "PROM-HS", "PROM-WL"
WORKLOAD = "prom-reads"
CONFIG = config(
    table("[clock]", mode="accelerated", factor=60),
    # 1 GB/s into a drive rated to throttle at 70 °C: hot within ~6 s of wall time.
    sim("dc0", HOT, "datacenter", write_rate="1000MB"),
    sim("hs0", COOL, "consumer-heatsink", write_rate="150MB"),
    # A light read workload on a drive of its own, for its series' labels.
    sim("wl0", LOAD, "generic"),
    table("[[job]]", name=WORKLOAD, target=f"sim:{LOAD}", engine="sim", pattern="random", bs="4KiB",
          read_pct=100, queue_depth=1, runtime="30m"),
    poll_interval="250ms", command_timeout="2s")


def prometheus_config(rule_paths, nvmond_port):
    """grafana/prometheus.yml as shipped, pointed at this nvmond, 1 s intervals."""
    with open(SHIPPED_CONFIG) as f:
        doc = yaml.safe_load(f)
    doc["global"] = {"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"}
    doc["rule_files"] = rule_paths
    (scrape,) = [c for c in doc["scrape_configs"] if c["job_name"] == "nvmond"]
    scrape["static_configs"] = [{"targets": [f"127.0.0.1:{nvmond_port}"]}]
    return yaml.safe_dump(doc)


def shortened_rules(text):
    """The shipped rules with `for:` at 2s and group intervals at the global 1s."""
    text = re.sub(r"^(\s+)for: \S+", r"\1for: 2s", text, flags=re.M)
    return re.sub(r"^\s+interval: \S+\n", "", text, flags=re.M)


class LocalServer:
    """A Prometheus-family server on 127.0.0.1:self.port with its log in
    self.log_path: started until /-/ready answers, stopped on every path."""
    name = "server"

    def launch(self, argv):
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=self.dir)
        wait_for(lambda: self.proc.poll() is not None or self.try_get("/-/ready") is not None, 30,
                 f"{self.name} to be ready")
        if self.proc.poll() is not None:
            raise AssertionError(f"{self.name} exited with {self.proc.returncode}:\n{self.log_text()}")
        return self

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def try_get(self, path):
        try:
            with urllib.request.urlopen(self.base + path, timeout=5) as r:
                return r.read().decode()
        except OSError:
            return None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()


class Prometheus(LocalServer):
    name = "prometheus"

    def __init__(self, workdir, nvmond_port, rules_text=shortened_rules):
        """rules_text: what each shipped rule file's text becomes before it is loaded."""
        self.dir = workdir
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        rules = []
        for name in sorted(os.listdir(RULES_DIR)):
            if name.endswith(".yml"):
                with open(os.path.join(RULES_DIR, name)) as f:
                    text = rules_text(f.read())
                path = os.path.join(workdir, name)
                with open(path, "w") as f:
                    f.write(text)
                rules.append(path)
        self.config = os.path.join(workdir, "prometheus.yml")
        with open(self.config, "w") as f:
            f.write(prometheus_config(rules, nvmond_port))
        self.log_path = os.path.join(workdir, "prometheus.log")
        self.proc = None

    def start(self):
        return self.launch(
            [PROMETHEUS, f"--config.file={self.config}", f"--storage.tsdb.path={self.dir}/tsdb",
             f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=1h",
             "--log.level=warn"])

    def api(self, path, **params):
        text = self.try_get(f"/api/v1/{path}" + ("?" + urllib.parse.urlencode(params) if params else ""))
        if text is None:
            return None
        doc = json.loads(text)
        return doc["data"] if doc.get("status") == "success" else None


class DaemonAndPrometheus(unittest.TestCase):
    """nvmond on the class's CONFIG and a Prometheus scraping it, for the
    class's tests (self.d, self.p); both stopped when the class is done."""
    CONFIG = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(PROMETHEUS):
            raise unittest.SkipTest("prometheus is not installed (Debian package prometheus)")
        cls.tmp = tempfile.mkdtemp(prefix="nvmond-prom-")
        cls.d = cls.p = None
        try:
            cls.d = Daemon(cls.CONFIG, workdir=cls.tmp).start()
            cls.p = Prometheus(cls.tmp, cls.d.port).start()
        except BaseException:
            cls.stop_all()
            raise

    @classmethod
    def stop_all(cls):
        try:
            if cls.p:
                cls.p.stop()
        finally:
            if cls.d:
                cls.d.stop()
            shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def tearDownClass(cls):
        cls.stop_all()

    def diagnose(self):
        return (f"\n--- prometheus log ---\n{self.p.log_text()[-3000:]}"
                f"\n--- nvmond log ---\n{self.d.log_text()[-3000:]}")


class PrometheusTest(DaemonAndPrometheus):
    CONFIG = CONFIG

    def test_1_rules_load_in_a_real_server(self):
        def evaluated():
            groups = self.p.api("rules")["groups"]
            health = [r.get("health") for g in groups for r in g["rules"]]
            return groups if "err" in health or all(h == "ok" for h in health) else None
        groups = wait_for(evaluated, 20, "every rule to be evaluated once")
        names = {g["name"] for g in groups}
        self.assertTrue({"nvmond-recording", "nvmond-thermal", "nvmond-qos-targets"} <= names, names)
        errors = [f'{r["name"]}: {r.get("lastError")}' for g in groups for r in g["rules"] if r["health"] != "ok"]
        self.assertEqual(errors, [])

    def test_2_target_is_up_and_drives_queryable(self):
        def target_up():
            data = self.p.api("targets")
            return data and any(t["health"] == "up" and t["labels"]["job"] == "nvmond"
                                for t in data["activeTargets"])
        try:
            wait_for(target_up, 20, "the nvmond target to be up")
        except AssertionError as e:
            raise AssertionError(str(e) + self.diagnose())

        def drives_up():
            data = self.p.api("query", query="nvme_up == 1")
            return data and {s["metric"]["serial"] for s in data["result"]} >= {HOT, COOL}
        wait_for(drives_up, 20, f"nvme_up == 1 for {HOT} and {COOL} in PromQL")

    def test_3_thermal_alert_fires_for_the_hot_drive_only(self):
        def alerts():
            data = self.p.api("alerts")
            return data["alerts"] if data else []

        def hot_firing():
            return any(a["labels"]["alertname"] == "NvmeThermalThrottling" and a["state"] == "firing"
                       and a["labels"].get("serial") == HOT for a in alerts())
        try:
            wait_for(hot_firing, 45, f"NvmeThermalThrottling firing for {HOT}")
        except AssertionError as e:
            raise AssertionError(f"{e}\nalerts: {json.dumps(alerts(), indent=1)}" + self.diagnose())

        fired = [a for a in alerts() if a["labels"]["alertname"] == "NvmeThermalThrottling"
                 and a["labels"].get("serial") == HOT][0]
        self.assertEqual(fired["labels"]["severity"], "critical")
        self.assertIn(HOT, fired["annotations"]["summary"])
        self.assertIn("NVMOND SIM DC", fired["annotations"]["description"])  # model from nvme_device_info

        # The same server has the heatsink drive's series, cool and not throttling ...
        temp = self.p.api("query", query=f'nvme_temperature_celsius{{serial="{COOL}",sensor="composite"}}')
        self.assertEqual(len(temp["result"]), 1)
        throttling = self.p.api("query", query=f'nvme_thermal_throttling{{serial="{COOL}"}}')
        self.assertEqual([s["value"][1] for s in throttling["result"]], ["0"])
        # ... and no thermal alert for it, pending or firing.
        cool_thermal = [a for a in alerts() if a["labels"].get("serial") == COOL
                        and re.match(r"Nvme(Thermal|Temperature)", a["labels"]["alertname"])]
        self.assertEqual(cool_thermal, [])

    def test_4_workload_series_keep_their_label_beside_the_scrape_job(self):
        query = f'nvmond_workload_running{{workload="{WORKLOAD}"}}'

        def running():
            data = self.p.api("query", query=query)
            return data["result"] if data and data["result"] else None
        try:
            (series,) = wait_for(running, 30, f"{query} in PromQL")
        except AssertionError as e:
            raise AssertionError(str(e) + self.diagnose())
        self.assertEqual(series["metric"].get("job"), "nvmond")
        self.assertEqual(series["metric"].get("workload"), WORKLOAD)
        self.assertEqual(series["value"][1], "1")
        # No label of nvmond's collided with a target label and got renamed.
        clashes = self.p.api("query", query='{exported_job=~".+"} or {exported_instance=~".+"}')
        self.assertEqual(clashes["result"], [])


if __name__ == "__main__":
    unittest.main()
