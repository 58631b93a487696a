"""Judges each lab scenario from results.json (written by `lab.py run`): the
evidence (Lab), the verdict (Report), the boot check and the scenario table.
The scenarios live by area: health_checks (SMART, thermal, failure),
io_checks (workload, PTS), caps_check.

Every check compares two independent views of the same controller: what
nvme-cli reads through the kernel, and what nvmond exports. Nothing here
compares a value with itself or with a constant the harness just set, except
where the constant is the controller's documented behaviour (QEMU 7.2).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Callable

import promtext

from . import hostload


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
            kernel = self.blocks.get(f"{name}.dmesg", {}).get("text", "")
            raise Missing(f"block {name!r} failed (rc={b['rc']}): {b['text'][-300:]}"
                          f"\n  its steps: {self._steps(b)}\n  {self._host_during(b)}"
                          + (f"\n  the guest kernel then: {kernel[-1200:]}" if kernel else ""))
        return b["text"]

    @staticmethod
    def _steps(block: dict) -> str:
        """The block's own key=value lines (return codes, uptime stamps), which
        the tail quoted above may have cut off."""
        lines = [ln for ln in block["text"].splitlines() if re.fullmatch(r"\w+=\S*", ln)]
        return " ".join(lines) or "none printed"

    def _host_during(self, block: dict) -> str:
        if "t_begin" not in block:
            return "host: no block times recorded"
        return hostload.summarize(self.r.get("host_samples", []), block["t_begin"], block["t_end"])

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

    def host_thermal(self, dev: str) -> dict[str, int]:
        """TMT1/TMT2 (kelvin) as nvme-cli's `get-feature -f 0x10` read them, where
        Identify's HCTMA bit 0 says the controller has host controlled thermal
        management; empty where it has none (then nvmond must export neither)."""
        b = self.blocks.get(f"hctm.A.{dev}")
        if b is None:
            raise Missing(f"the guest printed no block 'hctm.A.{dev}'")
        if not self.idctrl(dev).get("hctma", 0) & 1 or b["rc"] != 0:
            return {}  # a refusal is evidence here, not a failed block
        text = b["text"]
        m = re.search(r"Current value:\s*(?:0x)?([0-9a-fA-F]+)", text)
        if m is None:
            raise Missing(f"block hctm.A.{dev}: no get-feature value in {text[:200]!r}")
        v = int(m.group(1), 16)
        return {"tmt1": v >> 16, "tmt2": v & 0xFFFF}

    def metrics(self, name: str) -> list[promtext.Sample]:
        return promtext.parse(self.text(name))

    def marker(self, event: str) -> dict | None:
        return next((m for m in self.t["markers"] if m["event"] == event), None)

    def guest_failures(self, phase_prefix: str) -> list[str]:
        return [f["text"] for f in self.t["failures"] if f["phase"].startswith(phase_prefix)]

    def have_nvmond(self) -> bool:
        return self.env.get("HAVE_NVMOND") == "1"

    def drives(self) -> tuple[str, str, str, str]:
        """The two controllers: their serials, then their block devices."""
        s0, s1 = self.r["config"]["serials"]
        return s0, s1, self.dev_of[s0], self.dev_of[s1]


def check_guest_phase(rep: Report, lab: Lab, phase: str) -> None:
    """The guest itself reported no failure in this phase."""
    rep.check(not lab.guest_failures(phase), f"guest phase {phase}", "; ".join(lab.guest_failures(phase)))



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
from .health_checks import check_failure, check_smart, check_thermal  # noqa: E402
from .io_checks import check_pts, check_workload  # noqa: E402

SCENARIOS: dict[str, Callable[[dict], Report]] = {
    "boot": check_boot,
    "smart": check_smart,
    "thermal": check_thermal,
    "failure": check_failure,
    "workload": check_workload,
    "caps": check_caps,
    "pts": check_pts,
}
