"""The OCI image that packaging/oci/build-image writes, and its root running
nvmond the way a container runtime would.

The script runs as CI runs it (the binaries of NVMOND_BUILD_DIR, the Debian
12 root cached by the package tests, packaging/debian_root.py): it builds the
.deb, installs it in the root, checks the image's configuration there and
commits an OCI archive with buildah. The test then reads the archive as a
runtime does: oci-layout, index.json, the manifest, the config and one layer,
each blob matching its sha256 digest and size; the config's entrypoint,
user (65532, not root), port 9947, state volume and org.opencontainers.image
labels. The layer is unpacked into a fresh directory, the image's root, and
systemd-nspawn runs the config's entrypoint and command in it as PID 1 and
as the image's user, with no capability, on a read-only root with only the
state directory and the control socket's directory writable (what the
Kubernetes DaemonSet mounts), and a configuration bound over the image's
(as the ConfigMap is) that adds a simulated drive: nvmond serves /metrics
with the drive up and keeps its history in the state directory.

Needs root. Exit 77 (skipped) when not root, when buildah, debootstrap or
systemd-nspawn is missing, or when Debian's mirror cannot be reached and no
root is cached.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "packaging"))
sys.path.insert(0, os.path.join(SOURCE, "tests", "integration"))
sys.path.insert(0, HERE)
import debian_root  # noqa: E402
import unit_boot  # noqa: E402
from nvmond_harness import free_port, wait_for  # noqa: E402

BUILD_DIR = os.environ.get("NVMOND_BUILD_DIR", "build")
BUILD_IMAGE = os.path.join(SOURCE, "packaging", "oci", "build-image")
SERIAL = "IMAGE-SIM"
SKIP = 77


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(SKIP)


class Archive:
    """An OCI archive (a tar of an OCI image layout), read by digest."""

    def __init__(self, path):
        self.tar = tarfile.open(path)

    def read(self, name):
        return self.tar.extractfile(name).read()

    def blob(self, descriptor):
        algo, digest = descriptor["digest"].split(":")
        data = self.read(f"blobs/{algo}/{digest}")
        assert algo == "sha256" and hashlib.sha256(data).hexdigest() == digest, descriptor
        assert len(data) == descriptor["size"], descriptor
        return data


def test_config(port):
    return f"""
[daemon]
listen = "127.0.0.1:{port}"
state_dir = "/var/lib/nvmond"

[control]
socket = "/run/nvmond/control.sock"
""" + unit_boot.sim_config(SERIAL)


class ImageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="nvmond-image-test-")
        cls.archive_path = os.path.join(cls.work, "nvmond.oci.tar")
        r = subprocess.run([sys.executable, BUILD_IMAGE, "--no-build", "--build-dir", BUILD_DIR,
                            "--output", cls.archive_path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=1500)
        print(r.stdout[-2000:])
        if r.returncode != 0:
            raise AssertionError(f"build-image failed ({r.returncode}):\n{r.stdout[-4000:]}")
        cls.archive = Archive(cls.archive_path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def manifest_and_config(self):
        self.assertEqual(json.loads(self.archive.read("oci-layout")), {"imageLayoutVersion": "1.0.0"})
        index = json.loads(self.archive.read("index.json"))
        (desc,) = index["manifests"]
        self.assertEqual(desc["mediaType"], "application/vnd.oci.image.manifest.v1+json")
        manifest = json.loads(self.archive.blob(desc))
        self.assertEqual(manifest["config"]["mediaType"], "application/vnd.oci.image.config.v1+json")
        config = json.loads(self.archive.blob(manifest["config"]))
        return manifest, config

    def test_the_archive_is_an_oci_image_with_its_config_and_labels(self):
        manifest, config = self.manifest_and_config()
        (layer,) = manifest["layers"]
        self.assertTrue(layer["mediaType"].startswith("application/vnd.oci.image.layer.v1.tar"), layer)
        self.archive.blob(layer)  # digest and size
        c = config["config"]
        self.assertEqual(c["Entrypoint"], ["/usr/sbin/nvmond"])
        self.assertEqual(c["Cmd"], ["--config", "/etc/nvmond/nvmond.toml"])
        self.assertEqual(c["User"], "65532:65532", "the image runs unprivileged unless asked otherwise")
        self.assertEqual(list(c["ExposedPorts"]), ["9947/tcp"])
        self.assertEqual(list(c["Volumes"]), ["/var/lib/nvmond"])
        labels = c["Labels"]
        for key in ("title", "description", "version", "revision", "created", "licenses"):
            self.assertTrue(labels.get(f"org.opencontainers.image.{key}"), key)
        with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
            version = re.search(r"project\(nvmond VERSION ([\d.]+)", f.read()).group(1)
        self.assertTrue(labels["org.opencontainers.image.version"].startswith(version), labels)
        self.assertEqual(config["os"], "linux")
        self.assertEqual(len(config["rootfs"]["diff_ids"]), 1)

    def test_the_images_root_serves_metrics_from_a_simulated_drive(self):
        manifest, config = self.manifest_and_config()
        root = os.path.join(self.work, "root")
        os.makedirs(root)
        # As a runtime unpacks it: owners and modes as the layer says.
        blob = "blobs/" + manifest["layers"][0]["digest"].replace(":", "/")
        subprocess.run(f"tar -xOf {self.archive_path} {blob} | tar -C {root} --numeric-owner -xpf -",
                       shell=True, check=True)
        with open(os.path.join(root, "etc/nvmond/nvmond.toml")) as f:
            image_config = f.read()
        self.assertIn('\nlisten = "0.0.0.0:9947"', image_config, "the image's own config listens on its port")
        self.assertIn('\ndevices = "all"', image_config)
        st = os.stat(os.path.join(root, "var/lib/nvmond"))
        self.assertEqual((st.st_uid, st.st_gid), (65532, 65532), "the state directory is the image user's")

        # The DaemonSet's volumes: the state directory and the control
        # socket's directory writable, the configuration bound over the image's.
        state = os.path.join(self.work, "state")
        os.makedirs(state)
        os.chown(state, 65532, 65532)
        port = free_port()
        cfg = os.path.join(self.work, "nvmond.toml")
        with open(cfg, "w") as f:
            f.write(test_config(port))
        os.chmod(cfg, 0o644)
        c = config["config"]
        uid = c["User"].split(":")[0]
        with open(os.path.join(root, "etc/passwd")) as f:
            (user,) = [line.split(":")[0] for line in f if line.split(":")[2] == uid]
        cmd = ["systemd-nspawn", "-D", root, "--read-only", "--register=no", "--keep-unit", "--quiet",
               "--console=pipe",
               f"--user={user}", "--no-new-privileges=yes", "--drop-capability=all",
               f"--chdir={c['WorkingDir']}", "--kill-signal=SIGTERM",
               f"--bind={state}:/var/lib/nvmond", f"--bind-ro={cfg}:/etc/nvmond/nvmond.toml",
               "--tmpfs=/run/nvmond:mode=0755,uid=65532,gid=65532",
               *c["Entrypoint"], *c["Cmd"]]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd="/")
        try:
            def up():
                if proc.poll() is not None:
                    raise AssertionError(f"nvmond exited ({proc.returncode}):\n{proc.stdout.read()}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                        text = r.read().decode()
                except OSError:
                    return None
                return text if re.search(rf'^nvme_up\{{[^}}]*serial="{SERIAL}"[^}}]*\}} 1$', text, re.M) else None
            metrics = wait_for(up, 90, f"/metrics from the image's root with {SERIAL} up")
            self.assertIn("nvme_temperature_celsius", metrics)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                out, _ = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
        self.assertEqual(proc.returncode, 0, f"nvmond stops cleanly on SIGTERM:\n{out}")
        self.assertGreater(os.path.getsize(os.path.join(state, "nvmond.db")), 0,
                           f"the history is in the state volume:\n{out}")
        self.assertNotIn("Read-only file system", out)


if __name__ == "__main__":
    why = debian_root.unready(("buildah", "debootstrap", "cpack", "dpkg-deb", "unshare", "systemd-nspawn"))
    if why:
        skip(why)
    unittest.main()
