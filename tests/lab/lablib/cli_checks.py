"""What nvmond says beyond /metrics, against nvme-cli on the same controller:
`nvmonctl status --json` field by field, the namespace size nvme-cli's
id-ns implies, and the log pages QEMU 7.2's controller lacks (Device
Self-test, Persistent Event log, controller-initiated telemetry), where both
tools must refuse and nvmond must say so once and export nothing."""
from __future__ import annotations

import json
import math
import re

import promtext
from .checks import Lab, Missing, Report
from .smart_fields import KELVIN_OFFSET, WARNING_BITS


def block(lab: Lab, name: str) -> tuple[int, str]:
    """A block's exit status and text, whatever the status (a refusal is evidence here)."""
    b = lab.blocks.get(name)
    if b is None:
        raise Missing(f"the guest printed no block {name!r}")
    return b["rc"], b["text"]


def namespace_bytes(idns: dict) -> int:
    """NSZE x the in-use LBA format's data size, as nvme-cli's id-ns prints them."""
    lbaf = idns["lbafs"][idns["flbas"] & 0xF]
    return int(idns["nsze"]) << int(lbaf["ds"])


def media_and_path_entries(errlog: dict) -> int:
    """Entries nvme-cli's error-log shows with status code type 2 (media) or 3 (path).
    nvme-cli 2.3 prints status_field without the phase tag: SCT is bits 10:8."""
    n = 0
    for e in errlog.get("errors", []):
        if int(e.get("error_count", 0)) == 0:
            continue
        sct = (int(e["status_field"]) >> 8) & 0x7
        n += 1 if sct in (2, 3) else 0
    return n


def _close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def check_status(rep: Report, lab: Lab, s0: str, s1: str) -> None:
    """Every field of `nvmonctl status --json` that nvme-cli also prints."""
    drives = {d["serial"]: d for d in json.loads(lab.text("status.A"))["drives"]}
    for serial in (s0, s1):
        dev = lab.dev_of[serial]
        d = drives.get(serial)
        if not rep.check(d is not None, f"nvmonctl status lists {serial}", f"lists {sorted(drives)}"):
            continue
        idc = lab.json(f"idctrl.{dev}")
        before, after = lab.smart(f"smart.A2.{dev}"), lab.smart(f"smart.A3.{dev}")
        errlog = lab.json(f"errlog.A.{dev}")
        want = {
            "model": idc["mn"].strip(),
            "path": f"/dev/{dev}",
            "up": True,
            "warning_c": idc["wctemp"] - KELVIN_OFFSET,
            "link_degraded": False,
            "media_path_errors": media_and_path_entries(errlog),
        }
        diff = [f"{k}: got {d.get(k)!r}, nvme-cli {v!r}" for k, v in want.items()
                if not (d.get(k) == v or (isinstance(v, float) and _close(d.get(k), v)))]
        # Gauges nvme-cli read just before and after nvmonctl did.
        temps = {before["temperature"] - KELVIN_OFFSET, after["temperature"] - KELVIN_OFFSET}
        if not any(_close(d.get("composite_c"), t) for t in temps):
            diff.append(f"composite_c: got {d.get('composite_c')!r}, nvme-cli {sorted(temps)}")
        used = {before["percent_used"] / 100.0, after["percent_used"] / 100.0}
        if not any(_close(d.get("percentage_used"), u) for u in used):
            diff.append(f"percentage_used: got {d.get('percentage_used')!r}, nvme-cli {sorted(used)}")
        warnings = [{n for i, n in enumerate(WARNING_BITS) if s["critical_warning"] >> i & 1}
                    for s in (before, after)]
        if set(d.get("critical_warnings", [])) not in warnings:
            diff.append(f"critical_warnings: got {d.get('critical_warnings')!r}, nvme-cli {warnings}")
        rep.check(not diff, f"nvmonctl status of {serial} equals nvme-cli: {len(want) + 3} fields",
                  "; ".join(diff))


# (page, nvme-cli block prefix, Identify field and bit that say it is absent,
#  nvmond's "told once" text, metric prefixes nvmond must not export for it)
ABSENT_PAGES = [
    ("Device Self-test (06h)", "selftestlog", "oacs", 4, "no device self-test", ("nvme_self_test_",)),
    ("Persistent Event log (0Dh)", "pel", "lpa", 4, "no persistent event log", ("nvme_event_log_",)),
    ("controller-initiated telemetry (08h)", "telemetry", "lpa", 3, "no controller-initiated telemetry",
     ("nvmond_telemetry_",)),
]


def check_no_host_thermal_management(rep: Report, lab: Lab, samples: list[promtext.Sample],
                                     devs: dict[str, str]) -> None:
    """QEMU 7.2 has no host controlled thermal management: Identify's HCTMA bit 0
    is clear, nvme-cli's Get Features 10h is refused, and nvmond exports no
    TMT1/TMT2 limit (it does not ask: FIELDS compares whatever there is)."""
    for serial, dev in devs.items():
        hctma = lab.idctrl(dev).get("hctma", 0)
        rep.check(not hctma & 1, f"id-ctrl of {dev}: hctma bit 0 clear (no host controlled thermal management)",
                  f"hctma={hctma:#x}")
        rc, text = block(lab, f"hctm.A.{dev}")
        rep.check(rc != 0, f"nvme-cli refused Get Features 10h on {dev}", f"rc={rc}: {text[:200]}")
        there = [s.labels["limit"] for s in samples if s.name == "nvme_temperature_limit_celsius"
                 and s.labels.get("serial") == serial and s.labels.get("limit") in ("tmt1", "tmt2")]
        rep.check(not there, f"nvmond exports no TMT1/TMT2 limit for {serial}", ", ".join(there))


def check_absent_pages(rep: Report, lab: Lab, samples: list[promtext.Sample], devs: dict[str, str]) -> None:
    """Both tools agree the controller lacks each page: Identify says so, nvme-cli's
    command fails, nvmond tells it once (health_checks.check_told_once) and exports
    no series for it; `nvmonctl selftest status` refuses like nvme-cli."""
    for serial, dev in devs.items():
        idc = lab.idctrl(dev)
        mine = [s.name for s in samples if s.labels.get("serial") == serial]
        for page, prefix, field, bit, _, metrics in ABSENT_PAGES:
            rep.check(not idc[field] >> bit & 1, f"id-ctrl of {dev}: {field} bit {bit} clear (no {page})",
                      f"{field}={idc[field]:#x}")
            rc, text = block(lab, f"{prefix}.A.{dev}")
            rep.check(rc != 0, f"nvme-cli refused {page} on {dev}", f"rc={rc}: {text[:200]}")
            there = sorted({n for n in mine if n.startswith(metrics)})
            rep.check(not there, f"nvmond exports nothing of {page} for {serial}", ", ".join(there))
        rc, text = block(lab, f"selftest-status.A.{dev}")
        rep.check(rc != 0 and re.search(r"does not support Device Self-test", text) is not None,
                  f"nvmonctl selftest status {serial} refuses like nvme-cli", f"rc={rc}: {text[:200]}")
