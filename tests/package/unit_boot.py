"""Boots a chroot with nvmond installed under systemd-nspawn (systemd as PID 1
in the container) so the packaged unit runs with every restriction it
declares: capability bounding set, seccomp filter, ProtectSystem=strict,
device policy. A oneshot unit inside waits for nvmond's metrics, writes what
it saw to /unit-report.txt and powers the container off.

The daemon runs on a simulated drive with two io_uring jobs on files: one in
the state directory (writable under the unit), one in /srv/nvmond-scratch,
which ProtectSystem=strict makes read-only unless a drop-in adds it to
ReadWritePaths (what docs/operations.md tells operators to do).
"""
import os
import re
import shutil
import subprocess

SERIAL = "UNIT-SIM"
SCRATCH = "/srv/nvmond-scratch"
REPORT = "/unit-report.txt"



def sim_config(serial):
    """Polls every second; one simulated datacenter drive (its [[sim]] table
    last, open for more keys)."""
    return f"""
[collection]
poll_interval = "1s"

[[sim]]
name = "dc0"
serial = "{serial}"
profile = "datacenter"
"""


CONFIG = sim_config(SERIAL) + f"""write_rate = "100MB"

[safety]
allow_dirs = ["/var/lib/nvmond/scratch", "{SCRATCH}"]
""" + "".join(f"""
[[job]]
name = "{name}"
target = "{target}/job.dat"
engine = "io_uring"
pattern = "random"
bs = "4KiB"
read_pct = 50
queue_depth = 8
size = "8MiB"
runtime = "1h"
rate_iops = 200
""" for name, target in (("state-dir", "/var/lib/nvmond/scratch"), ("outside", SCRATCH)))

# Waits (polling, 60 s deadline) until the state-dir job has written and the
# outside job has either written or failed, then reports and powers off.
CHECK_SCRIPT = r"""#!/bin/bash
metrics() {
  exec 3<>/dev/tcp/127.0.0.1/9947 || return 1
  printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
  cat <&3
  exec 3<&-
}
settled() {
  m=$(metrics 2>/dev/null) || return 1
  grep -q '^nvmond_workload_ops_total{workload="state-dir",op="write"} [1-9]' <<<"$m" || return 1
  grep -qE '^(nvmond_workload_failed\{workload="outside"\} 1|nvmond_workload_ops_total\{workload="outside",op="write"\} [1-9])' <<<"$m"
}
for _ in $(seq 300); do settled && break; sleep 0.2; done
{
  systemctl show nvmond -p ActiveState -p NRestarts
  grep -E '^(Cap|Seccomp:|NoNewPrivs)' /proc/$(systemctl show nvmond -p MainPID --value)/status
  metrics | grep -E '^(nvme_up|nvmond_workload_(ops_total|failed))'
  journalctl -u nvmond --no-pager -o cat
} > /unit-report.txt 2>&1
systemctl poweroff
"""

CHECK_UNIT = """[Unit]
Description=report on nvmond under its unit, then power off
After=nvmond.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/nvmond-unit-report
"""


def available():
    return shutil.which("systemd-nspawn") is not None


def prepare(root):
    """Writes the configuration, the job files and the reporting unit."""
    def put(path, text, mode=0o644):
        full = os.path.join(root, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
        os.chmod(full, mode)
    put("/etc/nvmond/nvmond.toml", CONFIG)
    put("/usr/local/sbin/nvmond-unit-report", CHECK_SCRIPT, 0o755)
    put("/etc/systemd/system/nvmond-unit-report.service", CHECK_UNIT)
    wants = os.path.join(root, "etc/systemd/system/multi-user.target.wants")
    os.makedirs(wants, exist_ok=True)
    link = os.path.join(wants, "nvmond-unit-report.service")
    if not os.path.islink(link):
        os.symlink("/etc/systemd/system/nvmond-unit-report.service", link)
    for d in ("/var/lib/nvmond/scratch", SCRATCH):
        full = os.path.join(root, d.lstrip("/"), "job.dat")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.truncate(8 << 20)


def add_read_write_drop_in(root):
    """What docs/operations.md tells operators: `systemctl edit nvmond` with ReadWritePaths."""
    d = os.path.join(root, "etc/systemd/system/nvmond.service.d")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "override.conf"), "w") as f:
        f.write(f"[Service]\nReadWritePaths={SCRATCH}\n")


def boot(root, timeout=240):
    """Boots the container until the reporting unit powers it off; returns
    the report as {"state": {...}, "status": {...}, "metrics": {...}, "log": str}."""
    report = os.path.join(root, REPORT.lstrip("/"))
    if os.path.exists(report):
        os.remove(report)
    r = subprocess.run(["systemd-nspawn", "-D", root, "--boot", "--register=no", "--keep-unit", "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                       cwd="/")
    if not os.path.exists(report):
        raise AssertionError(f"the container wrote no report (nspawn rc={r.returncode}):\n{r.stdout[-3000:]}")
    with open(report) as f:
        text = f.read()
    out = {"state": {}, "status": {}, "metrics": {}, "log": text}
    for line in text.splitlines():
        if m := re.match(r"^(ActiveState|NRestarts)=(.*)$", line):
            out["state"][m.group(1)] = m.group(2)
        elif m := re.match(r"^(Cap\w+|Seccomp|NoNewPrivs):\s*(\S+)$", line):
            out["status"][m.group(1)] = m.group(2)
        elif m := re.match(r"^(nvm\w+\{[^}]*\}) (\S+)$", line):
            out["metrics"][m.group(1)] = float(m.group(2))
    return out
