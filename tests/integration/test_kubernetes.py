"""The Kubernetes manifests in packaging/kubernetes/: they parse and hold a
DaemonSet, a Service, a ServiceMonitor, PrometheusRules and the ConfigMaps;
the rules and dashboards in them are grafana/'s (generated, compared both as
the generator's text and as parsed objects); the ConfigMap's nvmond.toml
passes `nvmond --check-config`; the DaemonSet holds exactly the privileges
docs/operations.md names; the pieces point at each other (selectors, ports,
the writable mounts the configuration uses); soaks stay opt-in. With kubectl
on PATH the kustomizations are rendered too (kubectl is not in Debian's
archive, so this part is skipped where it is missing).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
from functools import cache

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from grafana_files import DASHBOARDS, RULE_FILES  # noqa: E402
from nvmond_harness import NVMOND, SOURCE_DIR  # noqa: E402

K8S = os.path.join(SOURCE_DIR, "packaging", "kubernetes")
BASE = os.path.join(K8S, "base")
GENERATE = "packaging/kubernetes/generate"
STALE = f"packaging/kubernetes/ differs from grafana/: run {GENERATE} and commit the result"


# libyaml's parser where python3-yaml has it: the dashboards are 4000 lines.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_all(path):
    with open(path) as f:
        return [d for d in yaml.load_all(f, Loader=LOADER) if d is not None]


def kustomization(folder):
    with open(os.path.join(folder, "kustomization.yaml")) as f:
        return yaml.safe_load(f)


@cache
def objects():
    """Every object the base kustomization lists, in its order (parsed once;
    the tests only read them)."""
    out = []
    for res in kustomization(BASE)["resources"]:
        out += load_all(os.path.join(BASE, res))
    return tuple(out)


def of_kind(kind):
    return [o for o in objects() if o["kind"] == kind]


def one(kind, name=None):
    found = [o for o in of_kind(kind) if name is None or o["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def config_toml():
    return one("ConfigMap", "nvmond-config")["data"]["nvmond.toml"]


def container():
    (c,) = one("DaemonSet")["spec"]["template"]["spec"]["containers"]
    return c


def alert_names(groups):
    return sorted(r["alert"] for g in groups for r in g["rules"] if "alert" in r)


class ManifestsTest(unittest.TestCase):
    def test_every_manifest_parses_and_the_kinds_are_there(self):
        listed = {os.path.normpath(os.path.join(BASE, r)) for r in kustomization(BASE)["resources"]}
        on_disk = {os.path.normpath(p) for p in glob.glob(os.path.join(BASE, "**", "*.yaml"), recursive=True)
                   if os.path.basename(p) != "kustomization.yaml"}
        self.assertEqual(on_disk - listed, set(), "manifests the kustomization does not list")
        kinds = [o["kind"] for o in objects()]
        for kind in ("Namespace", "DaemonSet", "Service", "ServiceMonitor", "PrometheusRule", "ConfigMap"):
            self.assertIn(kind, kinds)
        for o in objects():
            self.assertIn("apiVersion", o)
            self.assertTrue(o["metadata"]["name"], o)
        self.assertIn("nvmond.toml", one("ConfigMap", "nvmond-config")["data"])

    def test_generated_files_are_what_grafana_makes(self):
        r = subprocess.run([os.path.join(K8S, "generate"), "--check"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, f"{STALE}\n{r.stdout[-4000:]}")

    def test_prometheus_rules_are_grafanas_rules(self):
        rules = {o["metadata"]["name"]: o["spec"] for o in of_kind("PrometheusRule")}
        want = {}
        for path in RULE_FILES:
            name = os.path.basename(path).removesuffix(".yml").removesuffix(".rules")
            with open(path) as f:
                want[name] = yaml.safe_load(f)
        self.assertEqual(sorted(rules), sorted(want), STALE)
        for name, spec in want.items():
            self.assertEqual(alert_names(rules[name]["groups"]), alert_names(spec["groups"]), f"{name}: {STALE}")
            self.assertEqual(rules[name], spec, f"{name}: {STALE}")

    def test_dashboards_are_config_maps_for_grafanas_sidecar(self):
        maps = [o for o in of_kind("ConfigMap") if o["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
        got = {}
        for m in maps:
            for key, text in m["data"].items():
                got[key] = json.loads(text)
        want = {}
        for path in DASHBOARDS:
            with open(path) as f:
                want[os.path.basename(path)] = json.load(f)
        self.assertEqual(sorted(got), sorted(want), STALE)
        for key in want:
            self.assertEqual(got[key], want[key], f"{key}: {STALE}")

    def test_config_map_passes_check_config(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "nvmond.toml")
            with open(path, "w") as f:
                f.write(config_toml())
            r = subprocess.run([NVMOND, "--check-config", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_soaks_stay_opt_in(self):
        config = tomllib.loads(config_toml())
        self.assertNotIn("job", config, "no workload runs unless an operator adds it")
        self.assertNotIn("sim", config)
        safety = config.get("safety", {})
        self.assertFalse(safety.get("allow_serials") or safety.get("allow_dirs"), "no drive is writable by default")

    def test_daemonset_holds_exactly_the_privileges_nvmond_needs(self):
        pod = one("DaemonSet")["spec"]["template"]["spec"]
        for host in ("hostNetwork", "hostPID", "hostIPC"):
            self.assertFalse(pod.get(host, False), host)
        self.assertFalse(pod.get("automountServiceAccountToken", True), "nvmond never talks to the API server")
        sc = container()["securityContext"]
        self.assertEqual(sc["capabilities"], {"drop": ["ALL"], "add": ["SYS_ADMIN"]})
        self.assertIs(sc["privileged"], False)
        self.assertIs(sc["readOnlyRootFilesystem"], True)
        self.assertEqual(sc["runAsUser"], 0, "/dev/nvmeN is root's, mode 0600")
        self.assertIs(sc["allowPrivilegeEscalation"], False)
        volumes = {v["name"]: v for v in pod["volumes"]}
        host_paths = sorted(v["hostPath"]["path"] for v in volumes.values() if "hostPath" in v)
        self.assertEqual(host_paths, ["/dev", "/var/lib/nvmond"])
        mounts = {m["mountPath"]: m for m in container()["volumeMounts"]}
        writable = sorted(p for p, m in mounts.items() if not m.get("readOnly", False))
        self.assertEqual(writable, ["/run/nvmond", "/var/lib/nvmond"])

    def test_the_pieces_point_at_each_other(self):
        config = tomllib.loads(config_toml())
        port = int(config["daemon"]["listen"].rsplit(":", 1)[1])
        (cport,) = container()["ports"]
        self.assertEqual(cport["containerPort"], port)
        service = one("Service")
        (sport,) = service["spec"]["ports"]
        self.assertEqual(sport["targetPort"], cport["name"])
        pod_labels = one("DaemonSet")["spec"]["template"]["metadata"]["labels"]
        self.assertLessEqual(service["spec"]["selector"].items(), pod_labels.items())
        monitor = one("ServiceMonitor")
        self.assertLessEqual(monitor["spec"]["selector"]["matchLabels"].items(),
                             service["metadata"]["labels"].items())
        self.assertEqual([e["port"] for e in monitor["spec"]["endpoints"]], [sport["name"]])
        # The configuration writes only where the pod may write, and reads
        # itself where the ConfigMap is mounted.
        mounts = {m["mountPath"]: m for m in container()["volumeMounts"]}
        self.assertIn(config["daemon"]["state_dir"], mounts)
        socket = config.get("control", {}).get("socket", "/run/nvmond/control.sock")  # the default
        self.assertIn(os.path.dirname(socket), mounts)
        (config_arg,) = [a for a in container()["args"] if a.endswith(".toml")]
        self.assertEqual(mounts[os.path.dirname(config_arg)]["name"], "config")
        self.assertIn(os.path.basename(config_arg), one("ConfigMap", "nvmond-config")["data"])

    def test_image_tag_is_the_projects_version(self):
        with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
            version = re.search(r"project\(nvmond VERSION ([\d.]+)", f.read()).group(1)
        (image,) = kustomization(BASE)["images"]
        self.assertEqual((image["name"], image["newTag"]), (container()["image"], version))

    @unittest.skipUnless(shutil.which("kubectl"), "kubectl is not installed (not in Debian's archive)")
    def test_kustomize_renders_the_base_and_the_privileged_overlay(self):
        def render(folder):
            r = subprocess.run(["kubectl", "kustomize", folder], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout)
            return [d for d in yaml.safe_load_all(r.stdout) if d]
        base = render(BASE)
        self.assertEqual(sorted(o["kind"] for o in base), sorted(o["kind"] for o in objects()))
        for o in base:
            if o["kind"] != "Namespace":
                self.assertEqual(o["metadata"]["namespace"], "nvmond", o["metadata"]["name"])
        (ds,) = [o for o in render(os.path.join(K8S, "privileged")) if o["kind"] == "DaemonSet"]
        self.assertIs(ds["spec"]["template"]["spec"]["containers"][0]["securityContext"]["privileged"], True)


if __name__ == "__main__":
    unittest.main()
