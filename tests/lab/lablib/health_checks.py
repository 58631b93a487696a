"""Drive health as nvmond exports it, against nvme-cli through the kernel:
scenario A (SMART values and data units), C (thermal thresholds and warning
bits) and B (a controller removed)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

import promtext
from .checks import Lab, Missing, Report, _guard, check_guest_phase
from .cli_checks import (ABSENT_PAGES, check_absent_pages, check_no_host_thermal_management, check_status,
                         namespace_bytes)
from .smart_fields import (ABSENT_ON_QEMU_PREFIXES, CHECKED_METRICS, DATA_UNIT_BYTES, FIELDS,
                           Field)


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
    rep.check(not ocp, f"{what}: no OCP, self-test or event-log series for a controller without the C0 log,"
              " Device Self-test or Persistent Event log",
              ", ".join(ocp))


def sources(lab: Lab, dev: str, smart_block: str, thresh_block: str) -> dict[str, dict[str, int]]:
    return {"smart": lab.smart(smart_block), "idctrl": lab.idctrl(dev),
            "feature": lab.thresholds(thresh_block), "hctm": lab.host_thermal(dev),
            "ident": {"capacity": int(lab.info[dev]["capacity"])},
            "idns": {"capacity": namespace_bytes(lab.json(f"idns.A.{dev}"))}}


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



def _link_speed(text: str) -> float | None:
    """The kernel's "8.0 GT/s PCIe" in transfers a second; None for "Unknown"."""
    m = re.match(r"\s*([0-9.]+) GT/s", text)
    return float(m.group(1)) * 1e9 if m else None


def check_drive_evidence(rep: Report, lab: Lab, samples: list[promtext.Sample], serial: str, dev: str) -> None:
    """The drive's own error log against nvme-cli's reading of it, and the
    PCIe link against the kernel's attributes."""
    text = lab.text(f"errlog.A.{dev}")
    entries = [int(v) for v in re.findall(r'"error_count"\s*:\s*"?(\d+)', text)]
    rep.check(bool(entries), f"nvme-cli read {dev}'s error log", text[:200])
    logged = sum(1 for v in entries if v > 0)
    read = promtext.find(samples, "nvme_error_log_read_entries_total", serial=serial)
    total = sum(s.value for s in read)
    rep.check(len(read) == 7 and total == logged,
              f"nvmond read {dev}'s error log: {int(total)} entries in 7 classes, nvme-cli {logged}",
              f"{len(read)} series")
    attrs = dict(line.split("=", 1) for line in lab.text(f"link.A.{dev}").splitlines() if "=" in line)
    mismatches = []
    for link in ("current", "max"):
        want_speed = _link_speed(attrs.get(f"{link}_link_speed", ""))
        want_width = int(attrs[f"{link}_link_width"]) if attrs.get(f"{link}_link_width", "").isdigit() else None
        got_speed = promtext.get(samples, "nvme_pcie_link_speed_transfers_per_second", serial=serial, link=link)
        got_width = promtext.get(samples, "nvme_pcie_link_width_lanes", serial=serial, link=link)
        if got_speed != want_speed:
            mismatches.append(f"{link} speed {got_speed}, kernel {attrs.get(f'{link}_link_speed')!r}")
        if got_width != want_width:
            mismatches.append(f"{link} width {got_width}, kernel {attrs.get(f'{link}_link_width')!r}")
    rep.check(not mismatches, f"PCIe link of {serial} equals the kernel's: {attrs}", "; ".join(mismatches))
    # PCI class 0604xx: a PCI-to-PCI bridge, which is what a root port is.
    rep.check(attrs.get("port_class", "").startswith("0x0604"),
              f"{serial} sits behind a PCIe root port (class {attrs.get('port_class')}, port max "
              f"{attrs.get('port_max_link_speed')} x{attrs.get('port_max_link_width')})")
    rep.check(promtext.get(samples, "nvme_pcie_link_degraded", serial=serial) == 0,
              f"the link of {serial} at its maximum is not degraded")


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
    s0, s1, d0, d1 = lab.drives()
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
    check_guest_phase(rep, lab, "A")
    samples = lab.metrics("metrics.A")
    for serial, dev in ((s0, d0), (s1, d1)):
        rep.check(promtext.get(samples, "nvme_up", serial=serial) == 1, f"nvme_up of {serial} = 1")
        check_identity(rep, lab, samples, serial)
        compare_drive(rep, samples, serial,
                      sources(lab, dev, f"smart.A1.{dev}", f"thresh.A.{dev}"),
                      sources(lab, dev, f"smart.A2.{dev}", f"thresh.A.{dev}"), "metrics.A")
        check_drive_evidence(rep, lab, samples, serial, dev)
    check_status(rep, lab, s0, s1)
    check_absent_pages(rep, lab, samples, {s0: d0, s1: d1})
    check_no_host_thermal_management(rep, lab, samples, {s0: d0, s1: d1})
    check_told_once(rep, lab.text("nvmond.lacks"), (d0, d1))


def check_told_once(rep: Report, lines: str, devs: tuple[str, ...]) -> None:
    """QEMU 7.2 keeps no Device Self-test, no Persistent Event log and no
    telemetry logs: nvmond says so once per controller, at info, and never asks
    again (a controller asked every poll would say it every poll)."""
    for dev in devs:
        for page in (told for *_, told, _ in ABSENT_PAGES):
            n = len(re.findall(rf"^nvmond info: /dev/{dev}: {page}:", lines, re.M))
            rep.check(n == 1, f"nvmond said '{page}' for {dev} once", f"{n} times")


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
    s0, s1, d0, d1 = lab.drives()
    check_guest_phase(rep, lab, "C")
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
    s0, s1, d0, d1 = lab.drives()
    check_guest_phase(rep, lab, "B")
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
    rep.check(w2 is not None and lo <= w2 <= hi, "and equals nvme-cli's reading",
              f"{w2} vs {lo}..{hi}")
    scr = lab.marker("scrapes-B")
    ok, failed = (int(scr["args"]["ok"]), int(scr["args"]["fail"])) if scr else (0, -1)
    rep.check(ok > 0 and failed == 0, "/metrics answered every scrape during the removal",
              f"ok={ok} fail={failed}")
    ex = lab.marker("nvmond-exit")
    rep.check(ex is not None and ex["args"].get("rc") == "0",
              "nvmond exited 0 on SIGTERM afterwards", ex["text"] if ex else "no exit seen")

