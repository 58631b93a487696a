"""Judges each lab scenario from results.json (written by `lab.py run`).

Every check compares two independent views of the same controller: what
nvme-cli reads through the kernel, and what nvmond exports. Nothing here
compares a value with itself or with a constant the harness just set, except
where the constant is the controller's documented behaviour (QEMU 7.2).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Callable

import promtext
from .smart_fields import (ABSENT_ON_QEMU_PREFIXES, CHECKED_METRICS, DATA_UNIT_BYTES, FIELDS,
                           Field)


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    failures: int = 0
    skipped: str | None = None

    def check(self, cond: bool, what: str, detail: str = "") -> bool:
        self.lines.append(f"  {'ok  ' if cond else 'FAIL'} {what}" + (f": {detail}" if detail else ""))
        if not cond:
            self.failures += 1
        return cond

    def info(self, what: str) -> None:
        self.lines.append(f"  info {what}")

    @property
    def ok(self) -> bool:
        return self.failures == 0 and self.skipped is None

    def render(self, name: str) -> str:
        if self.skipped:
            return f"[{name}] SKIPPED: {self.skipped}"
        head = f"[{name}] {'PASS' if self.ok else f'FAIL ({self.failures} failed)'}"
        return "\n".join([head, *self.lines])


class Missing(Exception):
    """A block the guest should have printed is not there; the report says which."""


class Lab:
    """Read access to one results.json."""

    def __init__(self, results: dict):
        self.r = results
        self.t = results["transcript"]
        self.blocks = self.t["blocks"]
        self.env = results["config"]["env"]
        self.dev_of: dict[str, str] = {}
        self.info: dict[str, dict[str, str]] = {}
        for line in self.blocks.get("ident", {}).get("text", "").splitlines():
            kv = dict(re.findall(r"(\w+)=(\S*)", line))
            if "dev" in kv:
                self.dev_of[kv["serial"]] = kv["dev"]
                self.info[kv["dev"]] = kv

    def text(self, name: str) -> str:
        b = self.blocks.get(name)
        if b is None:
            raise Missing(f"the guest printed no block {name!r}")
        if b["rc"] != 0:
            raise Missing(f"block {name!r} failed (rc={b['rc']}): {b['text'][-300:]}")
        return b["text"]

    def has(self, name: str) -> bool:
        return name in self.blocks

    def json(self, name: str) -> dict:
        return json.loads(self.text(name))

    def smart(self, name: str) -> dict[str, int]:
        return {k: int(v) for k, v in self.json(name).items() if isinstance(v, (int, str))}

    def idctrl(self, dev: str) -> dict[str, int]:
        out = {}
        for k, v in self.json(f"idctrl.{dev}").items():
            try:
                out[k] = int(v)
            except (TypeError, ValueError):
                pass
        return out

    def thresholds(self, name: str) -> dict[str, int]:
        values = [int(v, 16) for v in re.findall(r"Current value:\s*(?:0x)?([0-9a-fA-F]+)",
                                                   self.text(name))]
        if len(values) != 2:
            raise Missing(f"block {name!r}: expected two get-feature values, got {values}")
        return {"over_k": values[0] & 0xFFFF, "under_k": values[1] & 0xFFFF}

    def metrics(self, name: str) -> list[promtext.Sample]:
        return promtext.parse(self.text(name))

    def marker(self, event: str) -> dict | None:
        return next((m for m in self.t["markers"] if m["event"] == event), None)

    def guest_failures(self, phase_prefix: str) -> list[str]:
        return [f["text"] for f in self.t["failures"] if f["phase"].startswith(phase_prefix)]

    def have_nvmond(self) -> bool:
        return self.env.get("HAVE_NVMOND") == "1"


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def _expected(f: Field, src: dict[str, dict[str, int]]) -> float | None:
    """The value nvme-cli implies for f; None where nvmond must leave the series out."""
    v = src[f.source].get(f.key)
    if v is None or (f.absent_if_zero and v == 0):
        return None
    return f.convert(v)


def compare_drive(rep: Report, samples: list[promtext.Sample], serial: str,
                  before: dict[str, dict[str, int]], after: dict[str, dict[str, int]],
                  what: str) -> None:
    """Every FIELDS row against nvme-cli readings taken before and after the scrape."""
    mismatches = []
    compared = 0
    for f in FIELDS:
        lo, hi = _expected(f, before), _expected(f, after)
        got = promtext.get(samples, f.metric, serial=serial, **f.labels)
        shown = f"{f.metric}{f.labels or ''}"
        if lo is None and hi is None:
            if got is not None:
                mismatches.append(f"{shown} = {got}, but nvme-cli reports no {f.source}.{f.key}")
            continue
        compared += 1
        if got is None:
            mismatches.append(f"{shown} missing (nvme-cli {f.source}.{f.key} = {hi})")
        elif f.counter and lo is not None and hi is not None:
            if not (lo - 1e-6 <= got <= hi + 1e-6 or _close(got, lo) or _close(got, hi)):
                mismatches.append(f"{shown} = {got}, nvme-cli {f.source}.{f.key} -> {lo}..{hi}")
        elif not any(e is not None and _close(got, e) for e in (lo, hi)):
            mismatches.append(f"{shown} = {got}, nvme-cli {f.source}.{f.key} -> {hi}")
    rep.check(not mismatches, f"{what}: {compared} series of {serial} equal nvme-cli",
              "".join(f"\n         {m}" for m in mismatches))

    mine = [s for s in samples if s.labels.get("serial") == serial and s.name.startswith("nvme_")]
    unknown = sorted({s.name for s in mine if s.name not in CHECKED_METRICS
                      and not s.name.startswith(ABSENT_ON_QEMU_PREFIXES)})
    # A known name with a label set no row describes (say a sensor="3" threshold)
    # would otherwise pass unverified.
    shapes = {(f.metric, tuple(sorted(f.labels.items()))) for f in FIELDS}
    table_names = {f.metric for f in FIELDS}
    unknown += sorted({f"{s.name}{dict(k)}" for s in mine if s.name in table_names
                       for k in [tuple(sorted((a, b) for a, b in s.labels.items()
                                              if a != "serial"))]
                       if (s.name, k) not in shapes})
    rep.check(not unknown, f"{what}: every nvme_* series of {serial} is covered by the table",
              f"unchecked: {unknown} (add rows to FIELDS or names to NOT_SMART_FIELDS"
              " in tests/lab/lablib/smart_fields.py)" if unknown else "")
    ocp = sorted({s.name for s in mine if s.name.startswith(ABSENT_ON_QEMU_PREFIXES)})
    rep.check(not ocp, f"{what}: no OCP series for a controller without the C0 log",
              ", ".join(ocp))


def sources(lab: Lab, dev: str, smart_block: str, thresh_block: str) -> dict[str, dict[str, int]]:
    return {"smart": lab.smart(smart_block), "idctrl": lab.idctrl(dev),
            "feature": lab.thresholds(thresh_block),
            "ident": {"capacity": int(lab.info[dev]["capacity"])}}


def check_identity(rep: Report, lab: Lab, samples: list[promtext.Sample], serial: str) -> None:
    dev = lab.dev_of[serial]
    idc = lab.json(f"idctrl.{dev}")
    want = {"serial": idc["sn"].strip(), "model": idc["mn"].strip(),
            "firmware": idc["fr"].strip(), "path": f"/dev/{dev}"}
    info = promtext.find(samples, "nvme_device_info", serial=serial)
    rep.check(len(info) == 1 and info[0].value == 1, f"nvme_device_info of {serial} exported once",
              f"{len(info)} series")
    if info:
        diff = {k: (info[0].labels.get(k), v) for k, v in want.items()
                if info[0].labels.get(k) != v}
        rep.check(not diff, f"nvme_device_info labels of {serial} match id-ctrl",
                  ", ".join(f"{k}: got {g!r} want {w!r}" for k, (g, w) in diff.items()))
        rep.info(f"backend label: {info[0].labels.get('backend')!r}")


def _guard(fn: Callable[[Lab, Report], None]) -> Callable[[dict], Report]:
    """Runs a scenario check; a missing block or unparsable output is one failure."""
    def wrapped(results: dict) -> Report:
        rep = Report()
        lab = Lab(results)
        for f in results.get("host_failures", []):
            rep.check(False, "host", f)
        if lab.t.get("aborted"):
            rep.check(False, "guest aborted", lab.t["aborted"])
            return rep
        try:
            fn(lab, rep)
        except (Missing, promtext.ParseError, json.JSONDecodeError, KeyError) as e:
            rep.check(False, "evidence", f"{type(e).__name__}: {e}")
        return rep
    return wrapped


def _data_units_delta(rep: Report, lab: Lab, dev: str, before: str, after: str,
                      written_bytes: int) -> None:
    """QEMU counts data units as ceil(total 512 B sectors / 1000), so a write of
    B bytes moves the counter by floor(B/512000) or ceil(B/512000)."""
    delta = lab.smart(after)["data_units_written"] - lab.smart(before)["data_units_written"]
    lo, hi = written_bytes // DATA_UNIT_BYTES, -(-written_bytes // DATA_UNIT_BYTES)
    rep.check(lo <= delta <= hi, f"data units written on {dev} grew by {delta}",
              f"expected {lo}..{hi} for {written_bytes} bytes")


def _bytes_written(lab: Lab, block: str) -> int:
    m = re.search(r"bytes=(\d+)", lab.text(block))
    if not m:
        raise Missing(f"block {block!r} does not say how many bytes it wrote")
    return int(m.group(1))


@_guard
def check_smart(lab: Lab, rep: Report) -> None:
    """Scenario A: nvmond's series equal nvme-cli's SMART log; data units add up."""
    s0, s1 = lab.r["config"]["serials"]
    d0, d1 = lab.dev_of[s0], lab.dev_of[s1]
    written = _bytes_written(lab, "write.A")
    _data_units_delta(rep, lab, d0, f"smart.A0.{d0}", f"smart.A1.{d0}", written)
    untouched = (lab.smart(f"smart.A1.{d1}")["data_units_written"]
                 - lab.smart(f"smart.A0.{d1}")["data_units_written"])
    rep.check(untouched == 0, f"data units written on {d1} (not written to) unchanged",
              f"moved by {untouched}")
    cmds = (lab.smart(f"smart.A1.{d0}")["host_write_commands"]
            - lab.smart(f"smart.A0.{d0}")["host_write_commands"])
    mib = int(lab.env["WRITE_MIB"])
    # Each 1 MiB O_DIRECT write is at least one command and at most 256 of 4 KiB.
    rep.check(mib <= cmds <= 256 * mib, f"host write commands on {d0} grew by {cmds}",
              f"expected {mib}..{256 * mib}")
    if not lab.have_nvmond():
        rep.info("nvmond not in this run: metric comparison skipped")
        return
    rep.check(not lab.guest_failures("A"), "guest phase A", "; ".join(lab.guest_failures("A")))
    samples = lab.metrics("metrics.A")
    for serial, dev in ((s0, d0), (s1, d1)):
        rep.check(promtext.get(samples, "nvme_up", serial=serial) == 1, f"nvme_up of {serial} = 1")
        check_identity(rep, lab, samples, serial)
        compare_drive(rep, samples, serial,
                      sources(lab, dev, f"smart.A1.{dev}", f"thresh.A.{dev}"),
                      sources(lab, dev, f"smart.A2.{dev}", f"thresh.A.{dev}"), "metrics.A")


@dataclass(frozen=True)
class Expect:
    """One thermal expectation on a scrape; required=False rows report but do not
    fail while the series is absent (features still being built)."""

    block: str
    metric: str
    labels: dict[str, str]
    test: Callable[[float], bool]
    wants: str
    required: bool = True


def thermal_expectations(s0: str, s1: str) -> list[Expect]:
    """Extend here when nvmond derives more from thermal state."""
    warn = {"spare": 1, "temperature": 0, "reliability": 1, "read_only": 1, "volatile_backup": 1}
    return [
        Expect("metrics.C1", "nvme_critical_warning", {"serial": s0, "bit": "temperature"},
               lambda v: v == 1, "1"),
        Expect("metrics.C1", "nvme_thermal_throttle_events_total",
               {"serial": s0, "source": "critical_warning"}, lambda v: v >= 1, ">= 1"),
        Expect("metrics.C1", "nvme_thermal_throttling", {"serial": s0}, lambda v: v == 1, "1"),
        *[Expect("metrics.C2", "nvme_critical_warning", {"serial": s1, "bit": b},
                 lambda v, w=w: v == w, str(w)) for b, w in warn.items()],
        Expect("metrics.C3", "nvme_critical_warning", {"serial": s0, "bit": "temperature"},
               lambda v: v == 0, "0 after the threshold is restored"),
    ]


@_guard
def check_thermal(lab: Lab, rep: Report) -> None:
    """Scenario C: a lowered over-temperature threshold and QMP-raised warning bits
    show up in nvmond's series."""
    if not lab.have_nvmond():
        rep.skipped = "needs nvmond"
        return
    s0, s1 = lab.r["config"]["serials"]
    d0, d1 = lab.dev_of[s0], lab.dev_of[s1]
    rep.check(not lab.guest_failures("C"), "guest phase C", "; ".join(lab.guest_failures("C")))
    low = int(lab.env["LOW_THRESHOLD_K"])
    cw = lab.smart(f"smart.C1.{d0}")["critical_warning"]
    rep.check(cw & 0x2 != 0, f"precondition: QEMU raised the temperature bit on {d0} "
              f"once the threshold was {low} K", f"critical_warning={cw}")
    seen = lab.marker("thermal-seen")
    if seen:
        rep.info(f"temperature bit seen by nvmond {seen['args'].get('ms')} ms after Set Features"
                 f" (poll interval {lab.env['POLL_INTERVAL']})")
    req = [r for r in lab.r["requests"] if r["action"] == "critical-warning"]
    rep.check(bool(req) and req[0]["ok"], "host raised smart_critical_warning over QMP",
              req[0].get("error", "") if req else "never requested")
    for e in thermal_expectations(s0, s1):
        got = promtext.get(lab.metrics(e.block), e.metric, **e.labels)
        what = f"{e.block}: {e.metric}{e.labels} {e.wants}"
        if got is None and not e.required:
            rep.info(f"{what}: not exported yet")
            continue
        rep.check(got is not None and e.test(got), what, f"got {got}")
    compare_drive(rep, lab.metrics("metrics.C1"), s0,
                  sources(lab, d0, f"smart.C1.{d0}", f"thresh.C1.{d0}"),
                  sources(lab, d0, f"smart.C1b.{d0}", f"thresh.C1.{d0}"), "metrics.C1")
    compare_drive(rep, lab.metrics("metrics.C2"), s1,
                  sources(lab, d1, f"smart.C2.{d1}", f"thresh.A.{d1}"),
                  sources(lab, d1, f"smart.C2b.{d1}", f"thresh.A.{d1}"), "metrics.C2")


@_guard
def check_failure(lab: Lab, rep: Report) -> None:
    """Scenario B: removing one controller marks only its series down."""
    if not lab.have_nvmond():
        rep.skipped = "needs nvmond"
        return
    s0, s1 = lab.r["config"]["serials"]
    d0, d1 = lab.dev_of[s0], lab.dev_of[s1]
    rep.check(not lab.guest_failures("B"), "guest phase B", "; ".join(lab.guest_failures("B")))
    req = [r for r in lab.r["requests"] if r["action"] == "remove"]
    rep.check(bool(req) and req[0]["ok"], f"QMP device_del of {s1} completed (DEVICE_DELETED)",
              req[0].get("error", "") if req else "never requested")
    removed = lab.marker("removed")
    rep.check(removed is not None and d1 not in removed["args"].get("present", removed["text"]),
              f"{d1} gone from the guest", removed["text"] if removed else "no marker")
    b1, b2 = lab.metrics("metrics.B1"), lab.metrics("metrics.B2")
    rep.check(promtext.get(b1, "nvme_up", serial=s1) == 0, f"nvme_up of removed {s1} = 0")
    rep.check(promtext.get(b1, "nvme_up", serial=s0) == 1, f"nvme_up of remaining {s0} = 1")
    left = sorted({s.name for s in b1 if s.labels.get("serial") == s1} - {"nvme_up"})
    rep.info(f"series of {s1} after removal besides nvme_up: {left or 'none'}")
    rep.check(promtext.get(b2, "nvme_up", serial=s0) == 1, f"{s0} still up after its write")
    rep.check(promtext.get(b2, "nvme_up", serial=s1) == 0, f"{s1} still down")
    w1 = promtext.get(b1, "nvme_data_written_bytes_total", serial=s0)
    w2 = promtext.get(b2, "nvme_data_written_bytes_total", serial=s0)
    rep.check(w1 is not None and w2 is not None and w2 > w1,
              f"data written of {s0} kept updating after the removal", f"{w1} -> {w2}")
    lo = lab.smart(f"smart.B.{d0}")["data_units_written"] * DATA_UNIT_BYTES
    hi = lab.smart(f"smart.B2.{d0}")["data_units_written"] * DATA_UNIT_BYTES
    rep.check(w2 is not None and lo <= w2 <= hi, f"and equals nvme-cli's reading",
              f"{w2} vs {lo}..{hi}")
    scr = lab.marker("scrapes-B")
    ok, failed = (int(scr["args"]["ok"]), int(scr["args"]["fail"])) if scr else (0, -1)
    rep.check(ok > 0 and failed == 0, "/metrics answered every scrape during the removal",
              f"ok={ok} fail={failed}")
    ex = lab.marker("nvmond-exit")
    rep.check(ex is not None and ex["args"].get("rc") == "0",
              "nvmond exited 0 on SIGTERM afterwards", ex["text"] if ex else "no exit seen")


@_guard
def check_workload(lab: Lab, rep: Report) -> None:
    """Phase W: an io_uring job of nvmonctl (the engine nvmond runs) wrote to
    nvme0n1; the controller's data units written grew by the job's bytes
    (floor..ceil of bytes/512000, QEMU's rounding), its write commands by the
    job's write I/Os where the job reports them (one command per I/O of at most
    MDTS), and the other controller did not move. With guest/workload.sh also:
    a job aimed at the other controller, whose serial [safety] does not allow,
    was refused before any I/O."""
    if not lab.has("workload"):
        rep.skipped = "no WORKLOAD_CMD in this run (lab.py run --nvmonctl ... or --workload-cmd ...)"
        return
    s0, s1 = lab.r["config"]["serials"]
    d0, d1 = lab.dev_of[s0], lab.dev_of[s1]
    rep.check(not lab.guest_failures("W"), "guest phase W", "; ".join(lab.guest_failures("W")))
    text = lab.text("workload")
    m = re.search(r"bytes_written=(\d+)", text)
    rep.check(m is not None and int(m.group(1)) > 0, "workload printed bytes_written=N > 0",
              m.group(0) if m else text[-300:])
    if not m:
        return
    written = int(m.group(1))
    _data_units_delta(rep, lab, d0, f"smart.W0.{d0}", f"smart.W1.{d0}", written)
    ops = re.search(r"write_ops=(\d+)", text)
    if ops:
        n = int(ops.group(1))
        cmds = (lab.smart(f"smart.W1.{d0}")["host_write_commands"]
                - lab.smart(f"smart.W0.{d0}")["host_write_commands"])
        if re.search(r"^nomerges=2$", text, re.M):
            rep.check(cmds == n, f"host write commands on {d0} grew by {cmds}",
                      f"the job reports {n} write I/Os (block-layer merging off)")
        else:
            # Merging on: adjacent in-flight writes may become one command (MDTS 512 KiB).
            lo = -(-written // (512 * 1024))
            rep.check(lo <= cmds <= n, f"host write commands on {d0} grew by {cmds}",
                      f"expected {lo}..{n} for {n} write I/Os (block-layer merging on)")
    if lab.has(f"smart.W0.{d1}"):
        untouched = (lab.smart(f"smart.W1.{d1}")["data_units_written"]
                     - lab.smart(f"smart.W0.{d1}")["data_units_written"])
        rep.check(untouched == 0, f"data units written on {d1} (not the job's target) unchanged",
                  f"moved by {untouched}")
    refused = re.search(r"refused_rc=(\d+)", text)
    if refused:
        rep.check(refused.group(1) == "1" and '"reason":"not_allowed"' in text,
                  f"a job on {d1} (serial {s1} not in allow_serials) was refused: exit 1, not_allowed",
                  f"exit {refused.group(1)}")
    summary = re.search(r'^\{.*"job":.*\}$', text, re.M)
    if summary:
        j = json.loads(summary.group(0))
        rep.info(f"job {j.get('job')}: {j['write']['ops']} writes, {j['write']['iops']:.0f} IOPS, "
                 f"p99 {j['write']['latency_seconds']['p99'] * 1e6:.0f} us "
                 f"over {j.get('elapsed_seconds', 0):.2f} s (TCG guest)")


def _run_json(text: str, name: str) -> dict | None:
    m = re.search(rf"^RUNJSON-BEGIN {name}$(.*?)^RUNJSON-END {name}$", text, re.M | re.S)
    if not m:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:
        return None


@_guard
def check_pts(lab: Lab, rep: Report) -> None:
    """Phase P: `nvmonctl test run purge` formatted nvme0n1 through libnvme
    (NVMe Format, which QEMU 7.2 supports) and wrote run.json; a short WSAT
    (3 rounds of 2 s) purged again and wrote one round per element with
    random 4 KiB writes, on the real kernel driver and io_uring."""
    if not lab.has("pts"):
        rep.skipped = "no phase P in this run (needs nvmonctl in the guest)"
        return
    text = lab.text("pts")
    rep.check(not lab.guest_failures("P"), "guest phase P", "; ".join(lab.guest_failures("P")))
    purge = _run_json(text, "purge")
    rep.check(purge is not None, "purge wrote run.json", text[-300:])
    if purge:
        rep.check(purge.get("status") == "completed", "purge run completed", str(purge.get("status")))
        method = purge.get("purge", {}).get("method")
        rep.check(method == "format", "purge used NVMe Format", f"{method}: {purge.get('purge')}")
        rep.check(purge.get("target", {}).get("serial") == lab.r["config"]["serials"][0],
                  "run.json names the drive by serial", str(purge.get("target")))
    wsat = _run_json(text, "wsat")
    rep.check(wsat is not None, "wsat wrote run.json", text[-300:])
    if not wsat:
        return
    rep.check(wsat.get("status") == "completed", "wsat run completed", str(wsat.get("status")))
    rounds = wsat.get("rounds", [])
    rep.check(len(rounds) == 3 and [r["index"] for r in rounds] == [0, 1, 2], "wsat has rounds 0, 1, 2",
              str([r.get("index") for r in rounds]))
    writes = [r.get("ops", {}).get("write", {}) for r in rounds]
    rep.check(all(w.get("ops", 0) > 0 and w.get("errors", 1) == 0 for w in writes),
              "every round wrote without errors", str([(w.get("ops"), w.get("errors")) for w in writes]))
    rep.check(wsat.get("purge", {}).get("method") == "format", "wsat purged with NVMe Format",
              str(wsat.get("purge")))
    before = wsat.get("drive", {}).get("smart_before", {}).get("data_units_written")
    after = wsat.get("drive", {}).get("smart_after", {}).get("data_units_written")
    rep.check(before is not None and after is not None and after > before,
              "SMART data units written grew across the run", f"{before} -> {after}")
    if rounds:
        rep.info(f"wsat on QEMU NVMe: {[round(r['iops']) for r in rounds]} IOPS per round (TCG guest)")


@_guard
def check_boot(lab: Lab, rep: Report) -> None:
    """The run itself: the guest booted, finished, and QEMU exited."""
    rep.check(lab.t.get("done", False), "guest finished the scenario")
    rep.check(lab.r.get("qemu_rc") == 0, "QEMU exited by guest power-off",
              f"rc={lab.r.get('qemu_rc')}")
    rep.info(f"timings: {lab.r.get('timings')}")
    for f in lab.t.get("failures", []):
        rep.info(f"guest reported in phase {f['phase']}: {f['text']}")


# Scenarios in their own modules use Lab, Report and _guard from above.
from .caps_check import check_caps  # noqa: E402

SCENARIOS: dict[str, Callable[[dict], Report]] = {
    "boot": check_boot,
    "smart": check_smart,
    "thermal": check_thermal,
    "failure": check_failure,
    "workload": check_workload,
    "caps": check_caps,
    "pts": check_pts,
}
