"""One QEMU guest: its process, its serial console as a stream of lines, and QMP.

Every wait takes an absolute deadline (time.monotonic()); nothing here sleeps
to synchronise. The QEMU process gets PR_SET_PDEATHSIG so it dies with the
harness even when ctest SIGKILLs us on a timeout, and `close()` kills it on
every other exit path.
"""
from __future__ import annotations

import ctypes
import json
import os
import queue
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path


class LabError(Exception):
    pass


@dataclass
class Controller:
    """One emulated NVMe controller and its backing image."""

    qdev_id: str
    serial: str
    image: Path
    # The namespace's logical block size: 4096 makes a 4Kn namespace.
    logical_block_size: int = 512


def _die_with_parent() -> None:
    PR_SET_PDEATHSIG = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Qmp:
    """Minimal QMP client over a unix socket; events are kept in arrival order."""

    def __init__(self, path: Path, deadline: float):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:
            try:
                self.sock.connect(str(path))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise LabError(f"QMP socket {path} never accepted a connection")
                time.sleep(0.05)  # polling for the socket to appear, bounded by deadline
        self.buf = b""
        self.events: list[dict] = []
        self._read(deadline)  # greeting
        self.command("qmp_capabilities", deadline=deadline)

    def _read(self, deadline: float) -> dict:
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LabError("QMP: no answer before the deadline")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise LabError("QMP: connection closed")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)

    def command(self, name: str, deadline: float, **args) -> object:
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read(deadline)
            if "event" in reply:
                self.events.append(reply)
            elif "error" in reply:
                raise LabError(f"QMP {name}: {reply['error']}")
            elif "return" in reply:
                return reply["return"]

    def wait_event(self, name: str, deadline: float, **data) -> dict:
        def matches(ev: dict) -> bool:
            return ev["event"] == name and all(ev.get("data", {}).get(k) == v
                                               for k, v in data.items())
        while True:
            for ev in self.events:
                if matches(ev):
                    self.events.remove(ev)
                    return ev
            reply = self._read(deadline)
            if "event" in reply:
                self.events.append(reply)

    def close(self) -> None:
        self.sock.close()


class Guest:
    def __init__(self, qemu: str, kernel: Path, initrd: Path, controllers: list[Controller],
                 workdir: Path, memory_mb: int = 512, append: str = ""):
        self.workdir = workdir
        self.qmp_path = workdir / "qmp.sock"
        self.qmp_path.unlink(missing_ok=True)
        self.console_log = open(workdir / "console.log", "w", encoding="utf-8")
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.qmp: Qmp | None = None
        self.started = time.monotonic()
        argv = [
            qemu, "-accel", "tcg", "-m", str(memory_mb), "-smp", "1",
            "-display", "none", "-no-reboot", "-monitor", "none",
            "-chardev", "stdio,id=con,signal=off", "-serial", "chardev:con",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            "-kernel", str(kernel), "-initrd", str(initrd),
            # panic=-1 plus -no-reboot: a guest panic ends QEMU instead of hanging.
            "-append", f"console=ttyS0 panic=-1 quiet loglevel=1 {append}".strip(),
            "-nodefaults", "-vga", "none",
        ]
        # q35, each controller behind its own PCIe root port, as on a server.
        # The ports' x-speed/x-width set only the ports' own links: QEMU 7.2's
        # NVMe endpoint reports x1 at 2.5 GT/s under any port (measured), so
        # the lab cannot train a degraded endpoint link.
        argv[1:1] = ["-machine", "q35"]
        for i, c in enumerate(controllers):
            argv += ["-device", f"pcie-root-port,id=rp{i},chassis={i + 1},slot={i + 1},x-speed=8,x-width=4",
                     "-drive", f"file={c.image},if=none,id=d{i},format=raw,cache=unsafe,werror=report,rerror=report",
                     "-device", f"nvme,id={c.qdev_id},serial={c.serial},drive=d{i},bus=rp{i}"
                     + (f",logical_block_size={c.logical_block_size},physical_block_size={c.logical_block_size}"
                        if c.logical_block_size != 512 else "")]
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n").replace("\r", "")
            self.console_log.write(line + "\n")
            self.console_log.flush()
            self.lines.put(line)
        self.lines.put(None)  # QEMU closed its console: it exited

    def connect_qmp(self, deadline: float) -> Qmp:
        self.qmp = Qmp(self.qmp_path, deadline)
        return self.qmp

    def next_line(self, deadline: float) -> str | None:
        """The next console line; None once QEMU has exited. Raises at the deadline."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise LabError("deadline passed waiting for the guest console")
        try:
            return self.lines.get(timeout=left)
        except queue.Empty:
            raise LabError("deadline passed waiting for the guest console") from None

    def wait_exit(self, deadline: float) -> int:
        try:
            return self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise LabError("QEMU did not exit before the deadline") from None

    def qmp_events(self, deadline: float) -> list[dict]:
        """Every QMP event not yet consumed: a query-status round trip reads
        the ones still queued on the socket. QEMU may exit meanwhile."""
        if not self.qmp:
            return []
        try:
            self.qmp.command("query-status", deadline=deadline)
        except (LabError, OSError):
            pass
        return list(self.qmp.events)

    def close(self) -> None:
        if self.qmp:
            self.qmp.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.reader.join(timeout=5)
        self.console_log.close()
        self.qmp_path.unlink(missing_ok=True)


def make_image(path: Path, size_mib: int) -> None:
    """A sparse raw image; recreated each run so counters start from a clean disk."""
    with open(path, "wb") as f:
        f.truncate(size_mib * 1024 * 1024)
    os.chmod(path, 0o644)
