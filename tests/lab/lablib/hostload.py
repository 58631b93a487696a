"""What the host was doing while the guest ran: one sample a second of the
kernel's pressure stall counters, dirty page cache and QEMU's own CPU time.

The guest is one TCG vCPU whose disks are files on the host, so a guest step
that crawls may be the host's doing (a disk busy writing back a build, a CPU
taken by a neighbour). A failed block's evidence quotes these samples over
the block's window, so a report says which it was instead of leaving a
product failure and a starved host looking alike.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

PERIOD_S = 1.0


def _pressure_total_us(resource: str) -> int | None:
    """The 'some' line's total: microseconds some task stalled on RESOURCE."""
    try:
        for line in Path(f"/proc/pressure/{resource}").read_text().splitlines():
            if line.startswith("some "):
                return int(line.rsplit("total=", 1)[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _meminfo_kib(*keys: str) -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name in keys:
                out[name] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return out


def _cpu_ticks(pid: int) -> int | None:
    """utime + stime of PID, in clock ticks."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return None


def sample(pid: int, t: float) -> dict:
    mem = _meminfo_kib("Dirty", "Writeback")
    return {"t": round(t, 2),
            "io_some_us": _pressure_total_us("io"),
            "cpu_some_us": _pressure_total_us("cpu"),
            "dirty_kib": mem.get("Dirty"),
            "writeback_kib": mem.get("Writeback"),
            "qemu_ticks": _cpu_ticks(pid),
            "load1": float(Path("/proc/loadavg").read_text().split()[0])}


class HostSampler:
    """Samples the host every PERIOD_S on its own thread until stop()."""

    def __init__(self, pid: int, started: float):
        self.pid = pid
        self.started = started
        self.samples: list[dict] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            self.samples.append(sample(self.pid, time.monotonic() - self.started))
            if self._stop.wait(PERIOD_S):  # a sampling period, not a synchronisation
                return

    def stop(self) -> list[dict]:
        self._stop.set()
        self._thread.join(timeout=5)
        return self.samples


def _rate(first: dict, last: dict, key: str, per: float) -> float | None:
    if first.get(key) is None or last.get(key) is None or last["t"] <= first["t"]:
        return None
    return (last[key] - first[key]) / per / (last["t"] - first["t"])


def summarize(samples: list[dict], t0: float, t1: float) -> str:
    """One line on the host between t0 and t1 (seconds since the guest started)."""
    window = [s for s in samples if t0 - PERIOD_S <= s["t"] <= t1 + PERIOD_S]
    if len(window) < 2:
        return f"host: {len(window)} sample(s) between {t0:.0f} and {t1:.0f} s"
    first, last = window[0], window[-1]
    parts = [f"host {first['t']:.0f}-{last['t']:.0f} s"]
    io = _rate(first, last, "io_some_us", 1e6)
    cpu = _rate(first, last, "cpu_some_us", 1e6)
    qemu = _rate(first, last, "qemu_ticks", os.sysconf("SC_CLK_TCK"))
    if io is not None:
        parts.append(f"io stalled {io:.0%} of the time")
    if cpu is not None:
        parts.append(f"cpu stalled {cpu:.0%}")
    if qemu is not None:
        parts.append(f"QEMU used {qemu:.0%} of a CPU")
    dirty = [s["dirty_kib"] + (s["writeback_kib"] or 0) for s in window if s.get("dirty_kib") is not None]
    if dirty:
        parts.append(f"dirty+writeback up to {max(dirty) / 1024:.0f} MiB")
    parts.append(f"load1 up to {max(s['load1'] for s in window):.1f}")
    return ", ".join(parts)
