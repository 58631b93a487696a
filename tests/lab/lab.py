#!/usr/bin/env python3
"""Tier-3 lab: nvmond on a real Linux kernel driving QEMU's emulated NVMe.

  lab.py run   --nvmond PATH --nvmonctl PATH --workdir DIR
                                             boots one guest, runs guest/scenario.sh,
                                             answers its requests over QMP and writes
                                             DIR/results.json (exit 77: lab unavailable)
  lab.py check SCENARIO --results FILE       judges one scenario from results.json
                                             (smart, failure, thermal, workload, caps, all)

Python 3 standard library only. See tests/lab/README.md.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import signal
import stat
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# tests/ for promtext, the exposition parser the integration tests share.
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from lablib import checks, hostload, initramfs  # noqa: E402
from lablib.unit_caps import setpriv_args, unit_capabilities  # noqa: E402
from lablib.protocol import ConsoleParser  # noqa: E402
from lablib.vm import Controller, Guest, LabError, make_image  # noqa: E402

SKIP = 77  # ctest SKIP_RETURN_CODE
MODULES = ["crct10dif_common", "crc-t10dif", "crc64", "crc64-rocksoft", "t10-pi",
           "nvme-core", "nvme"]
SERIALS = ["LABSN0001", "LABSN0002"]
# The second controller's namespace is 4Kn, for the PTS block-size refusal.
LOGICAL_BLOCK_SIZES = [512, 4096]

# Guest knobs, written to /lab/lab.env. QEMU 7.2 reports 323 K; its default
# over-temperature threshold is 343 K (= WCTEMP).
GUEST_ENV = {
    "WRITE_MIB": "64",
    "WRITE_AFTER_REMOVE_MIB": "8",
    "POLL_INTERVAL": "1s",
    "LOW_THRESHOLD_K": "313",
    "DEFAULT_THRESHOLD_K": "343",
    # spare | reliability | read_only | volatile_backup; temperature comes from FID 04h.
    "QMP_WARNING": str(0x01 | 0x04 | 0x08 | 0x10),
    "WORKLOAD_CMD": "",
    # Phase W job (guest/workload.sh, the default WORKLOAD_CMD with nvmonctl):
    # random 4 KiB writes at QD8 through io_uring, away from phase A's first 64 MiB.
    "WORKLOAD_BS": "4KiB",
    "WORKLOAD_QD": "8",
    "WORKLOAD_OFFSET": "128MiB",
    "WORKLOAD_RANGE": "64MiB",
    "WORKLOAD_BYTES": "8MiB",
}
DEFAULT_WORKLOAD_CMD = "sh /lab/workload.sh"


def log(msg: str) -> None:
    print(f"[lab {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def find_kernel(arg: str | None) -> tuple[Path, Path]:
    kernels = [Path(arg)] if arg else sorted(Path(p) for p in glob.glob("/boot/vmlinuz-*"))
    for k in reversed(kernels):
        version = k.name.removeprefix("vmlinuz-")
        moddir = Path("/lib/modules") / version
        if k.is_file() and os.access(k, os.R_OK) and (moddir / "modules.dep").is_file():
            return k, moddir
    raise FileNotFoundError("no readable /boot/vmlinuz-* with /lib/modules/<version>/modules.dep"
                            " (apt-get install linux-image-amd64)")


def build_initramfs(out: Path, moddir: Path, nvmond: Path | None, nvmonctl: Path | None,
                    env: dict[str, str]) -> int:
    img = initramfs.Initramfs()
    for d in ("/proc", "/sys", "/dev", "/tmp", "/run", "/etc", "/root"):
        img.mkdir(d)
    img.add_chardev("/dev/console", 5, 1)
    img.add_chardev("/dev/null", 1, 3, 0o666)
    initramfs.add_busybox(img, shutil.which("busybox") or "/bin/busybox")
    initramfs.add_binary(img, "/usr/sbin/nvme", shutil.which("nvme") or "/usr/sbin/nvme")
    if nvmond:
        initramfs.add_binary(img, "/usr/sbin/nvmond", nvmond)
    if nvmonctl:
        initramfs.add_binary(img, "/usr/bin/nvmonctl", nvmonctl)
    # util-linux's setpriv (busybox's applet has no --bounding-set) runs
    # nvmond with the unit's capability bounding set; without it the guest
    # runs nvmond unrestricted and lab_caps fails on its capabilities.
    if shutil.which("setpriv"):
        initramfs.add_binary(img, "/usr/lib/lab/setpriv", shutil.which("setpriv"))
    order = initramfs.module_load_order(moddir, MODULES)
    loaded = []
    for rel in order:
        name = os.path.basename(rel).split(".ko")[0] + ".ko"
        img.add_bytes(f"/lib/modules/{name}", initramfs.module_bytes(moddir / rel))
        loaded.append(name)
    img.add_bytes("/lib/modules/load-order", ("\n".join(loaded) + "\n").encode())
    img.add_file("/init", HERE / "guest" / "init", 0o755)
    for f in ("lib.sh", "scenario.sh", "workload.sh", "pts.sh"):
        img.add_file(f"/lab/{f}", HERE / "guest" / f, 0o644)
    env_text = "".join(f"{k}='{v}'\n" for k, v in env.items())
    img.add_bytes("/lab/lab.env", env_text.encode())
    img.add_bytes("/etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")
    img.add_bytes("/etc/group", b"root:x:0:\n")
    return img.write(out)


class Requests:
    """Host-side actions the guest asks for with "LAB: request <action> k=v"."""

    def __init__(self, guest: Guest, controllers: list[Controller], deadline: float):
        self.guest = guest
        self.by_serial = {c.serial: c for c in controllers}
        self.deadline = deadline
        self.log: list[dict] = []

    def handle(self, marker: dict) -> None:
        action = marker["text"].split()[0]
        args = marker["args"]
        entry = {"action": action, "args": args, "t": marker["t"]}
        started = time.monotonic()
        try:
            ctrl = self.by_serial[args["serial"]]
            qmp = self.guest.qmp
            assert qmp is not None
            if action == "critical-warning":
                qmp.command("qom-set", self.deadline, path=f"/machine/peripheral/{ctrl.qdev_id}",
                            property="smart_critical_warning", value=int(args["value"]))
            elif action == "remove":
                qmp.command("device_del", self.deadline, id=ctrl.qdev_id)
                # The guest must eject the function (ACPI PCI hotplug) before QEMU reports it.
                qmp.wait_event("DEVICE_DELETED", min(self.deadline, time.monotonic() + 60),
                               device=ctrl.qdev_id)
            else:
                raise LabError(f"unknown request {action}")
            entry["ok"] = True
        except (LabError, KeyError, OSError) as e:
            entry["ok"] = False
            entry["error"] = str(e)
        entry["seconds"] = round(time.monotonic() - started, 3)
        log(f"request {action} {args}: {'ok' if entry['ok'] else entry['error']}"
            f" ({entry['seconds']} s)")
        self.log.append(entry)


def run(args: argparse.Namespace) -> int:
    work = Path(args.workdir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    results_path = Path(args.results).resolve() if args.results else work / "results.json"
    results_path.unlink(missing_ok=True)
    reason = unavailable(args)
    if reason:
        log(f"SKIP: {reason}")
        # The lab_* checks read this and skip too instead of failing on no evidence.
        results_path.write_text(json.dumps({"skipped": reason}))
        return SKIP
    return boot_and_drive(args, work, results_path)


def image_dir(work: Path, need_bytes: int) -> Path:
    """Where the controllers' images live: on tmpfs when it has room twice over,
    so that the guest's I/O does not depend on how busy the host's disk is
    (a guest write into a hole of a sparse image waits for the host
    filesystem's block allocation)."""
    shm = Path("/dev/shm")
    try:
        st = os.statvfs(shm)
    except OSError:
        return work
    if st.f_bavail * st.f_frsize < 2 * need_bytes:
        return work
    # A fixed name per work folder, so a run killed before its cleanup is
    # replaced by the next one instead of piling up in memory; in a
    # world-writable folder it is used only as this user's own directory
    # (a planted symlink or someone else's folder falls back to `work`).
    d = shm / f"nvmond-lab-{hashlib.sha256(str(work).encode()).hexdigest()[:12]}"
    try:
        d.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(d)
    except OSError:
        return work
    return d if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() else work


def unavailable(args: argparse.Namespace) -> str | None:
    """Why this machine cannot run the lab, or None."""
    for tool in ("qemu-system-x86_64", "busybox", "nvme"):
        if not shutil.which(tool):
            return f"{tool} not installed"
    try:
        find_kernel(args.kernel)
    except FileNotFoundError as e:
        return str(e)
    return None


def boot_and_drive(args: argparse.Namespace, work: Path, results_path: Path) -> int:
    qemu = shutil.which("qemu-system-x86_64")
    assert qemu is not None
    kernel, moddir = find_kernel(args.kernel)
    nvmond = Path(args.nvmond).resolve() if args.nvmond else None
    if nvmond and not nvmond.is_file():
        log(f"nvmond binary {nvmond} does not exist")
        return 2
    nvmonctl = Path(args.nvmonctl).resolve() if args.nvmonctl else None
    if nvmonctl and not nvmonctl.is_file():
        log(f"nvmonctl binary {nvmonctl} does not exist")
        return 2

    t_start = time.monotonic()
    deadline = t_start + args.timeout

    env = dict(GUEST_ENV, HAVE_NVMOND="1" if nvmond else "0",
               UNIT_BOUNDING_SET=setpriv_args(unit_capabilities()))
    if args.workload_cmd:
        env["WORKLOAD_CMD"] = args.workload_cmd
    elif nvmonctl:
        env["WORKLOAD_CMD"] = DEFAULT_WORKLOAD_CMD
    initrd = work / "initramfs.cpio"
    size = build_initramfs(initrd, moddir, nvmond, nvmonctl, env)
    t_built = time.monotonic()
    log(f"initramfs {size / 2**20:.1f} MiB in {t_built - t_start:.1f} s; kernel {kernel}")

    if args.image_dir:
        images = Path(args.image_dir).resolve()
        images.mkdir(parents=True, exist_ok=True)
    else:
        images = image_dir(work, len(SERIALS) * args.image_mib * 2**20)
    controllers = []
    for i, serial in enumerate(SERIALS):
        image = images / f"nvme{i}.img"
        make_image(image, args.image_mib)
        controllers.append(Controller(qdev_id=f"nvmectl{i}", serial=serial, image=image,
                                      logical_block_size=LOGICAL_BLOCK_SIZES[i]))

    guest = Guest(qemu, kernel, initrd, controllers, work)
    sampler = hostload.HostSampler(guest.proc.pid, guest.started)
    parser = ConsoleParser(guest.started)
    requests = Requests(guest, controllers, deadline)
    host_failures: list[str] = []
    qemu_rc = None
    qmp_events: list[dict] = []
    try:
        guest.connect_qmp(min(deadline, time.monotonic() + 30))
        while not parser.t.done and parser.t.aborted is None:
            line = guest.next_line(deadline)
            if line is None:
                host_failures.append("QEMU exited before the guest said done")
                break
            if args.verbose:
                print(f"  | {line}", flush=True)
            marker = parser.feed(line)
            if marker is None:
                continue
            if not args.verbose:
                log(f"guest: {marker['event']} {marker['text']}")
            if marker["event"] == "request":
                requests.handle(marker)
        qmp_events = guest.qmp_events(min(deadline, time.monotonic() + 5))
        # With werror/rerror=report a host I/O error reaches the guest as one;
        # either way the run no longer says anything about nvmond.
        for ev in qmp_events:
            if ev["event"] == "BLOCK_IO_ERROR":
                host_failures.append(f"QEMU's own I/O on a backing image failed: {ev.get('data')}")
        # After "done" the guest powers off; give it a bounded moment, then kill.
        try:
            qemu_rc = guest.wait_exit(min(deadline, time.monotonic() + 30))
        except LabError as e:
            host_failures.append(str(e))
    except LabError as e:
        host_failures.append(str(e))
        log(f"ERROR: {e}")
    finally:
        guest.close()
        host_samples = sampler.stop()
        if images != work and not args.image_dir:
            shutil.rmtree(images, ignore_errors=True)
    t_end = time.monotonic()

    booted = parser.t.marker("booted")
    results = {
        "config": {"serials": SERIALS, "env": env, "kernel": str(kernel),
                   "nvmond": str(nvmond) if nvmond else None,
                   "nvmonctl": str(nvmonctl) if nvmonctl else None,
                   "image_mib": args.image_mib, "image_dir": str(images)},
        "controllers": [{"qdev_id": c.qdev_id, "serial": c.serial} for c in controllers],
        "transcript": parser.t.__dict__,
        "requests": requests.log,
        "host_failures": host_failures,
        "qemu_rc": qemu_rc,
        "qmp_events": [ev["event"] for ev in qmp_events],
        "host_samples": host_samples,
        "timings": {
            "initramfs_s": round(t_built - t_start, 2),
            "boot_to_devices_s": booted["t"] if booted else None,
            "guest_total_s": round(t_end - t_built, 2),
            "total_s": round(t_end - t_start, 2),
        },
    }
    results_path.write_text(json.dumps(results, indent=1))
    log(f"results in {results_path}; console in {work / 'console.log'}; timings "
        f"{results['timings']}")
    for name, b in parser.t.blocks.items():
        if b["t_end"] - b["t_begin"] >= 10:
            log(f"block {name}: rc={b['rc']}, {b['t_end'] - b['t_begin']:.1f} s; "
                + hostload.summarize(host_samples, b["t_begin"], b["t_end"]))
    for f in parser.t.failures:
        log(f"guest reported ({f['phase']}): {f['text']}")
    for f in host_failures:
        log(f"host: {f}")
    if parser.t.aborted:
        log(f"guest aborted: {parser.t.aborted}")
    ok = parser.t.done and not host_failures and not parser.t.aborted
    if not ok:
        # The console's end says where the guest stopped: CI keeps only this output.
        tail = (work / "console.log").read_text(encoding="utf-8", errors="replace").splitlines()[-80:]
        log("the console's last lines:\n" + "\n".join(f"  | {line}" for line in tail))
    return 0 if ok else 1


def check(args: argparse.Namespace) -> int:
    try:
        results = json.loads(Path(args.results).read_text())
    except FileNotFoundError:
        print(f"no results at {args.results}: did the lab_run test run?")
        return 1
    if "skipped" in results:
        print(f"[{args.scenario}] SKIPPED: lab unavailable: {results['skipped']}")
        return SKIP
    names = list(checks.SCENARIOS) if args.scenario == "all" else [args.scenario]
    ok = True
    for name in names:
        report = checks.SCENARIOS[name](results)
        print(report.render(name))
        if report.skipped:
            if len(names) == 1:
                return SKIP
            continue
        ok = ok and report.ok
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="boot the guest and gather results")
    r.add_argument("--nvmond", help="nvmond binary (without it only nvme-cli runs)")
    r.add_argument("--workdir", required=True, help="build directory for images and logs")
    r.add_argument("--results", help="results file (default WORKDIR/results.json)")
    r.add_argument("--kernel", help="kernel image (default newest /boot/vmlinuz-*)")
    r.add_argument("--timeout", type=float, default=420.0, help="hard limit for the whole run, s")
    r.add_argument("--image-mib", type=int, default=256)
    r.add_argument("--image-dir", help="folder for the controllers' images "
                   "(default: a folder on /dev/shm when it has room, else --workdir)")
    r.add_argument("--nvmonctl", help="nvmonctl binary: phase W runs an io_uring job with it"
                   " (guest/workload.sh) unless --workload-cmd says otherwise")
    r.add_argument("--workload-cmd", default="",
                   help="guest command for phase W; must print bytes_written=N")
    r.add_argument("-v", "--verbose", action="store_true", help="echo the guest console")
    c = sub.add_parser("check", help="judge one scenario from results.json")
    c.add_argument("scenario", choices=[*checks.SCENARIOS, "all"])
    c.add_argument("--results", required=True)
    args = ap.parse_args()

    if args.cmd == "run":
        # A hard stop that does not depend on our own deadlines being honoured:
        # SIGALRM/SIGTERM unwind through run()'s finally, which kills QEMU.
        def stop(signum, _frame):
            raise SystemExit(f"lab: stopped by signal {signum}")
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGALRM, stop)
        signal.alarm(int(args.timeout) + 60)
        return run(args)
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
