#!/usr/bin/env python3
"""Offline test of the lab's checks: they pass on a recorded run
(fixtures/results.json, made by `lab.py run` with nvmond; see fixtures/README)
and each doctored copy of it makes the intended scenario fail.
Exit 0 when every case behaves, 1 otherwise."""
from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
# tests/ for promtext, the exposition parser the integration tests share.
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from lablib import checks  # noqa: E402

FIXTURE = HERE / "fixtures" / "results.json"
S0, S1 = "LABSN0001", "LABSN0002"


def edit_metric(block: str, name: str, labels: dict[str, str],
                fn: Callable[[str], str | None]) -> Callable[[dict], None]:
    """Rewrites the matching sample lines of a metrics block (None deletes the line)."""
    def apply(r: dict) -> None:
        b = r["transcript"]["blocks"][block]
        out, hits = [], 0
        for line in b["text"].splitlines():
            if (line.startswith(name + "{")
                    and all(f'{k}="{v}"' in line for k, v in labels.items())):
                hits += 1
                new = fn(line)
                if new is not None:
                    out.append(new)
            else:
                out.append(line)
        assert hits == 1, f"{block}: {hits} lines match {name}{labels}"
        b["text"] = "\n".join(out)
    return apply


def add_value(delta: float) -> Callable[[str], str]:
    def fn(line: str) -> str:
        head, _, v = line.rpartition(" ")
        return f"{head} {float(v) + delta}"
    return fn


def set_value(v: float) -> Callable[[str], str]:
    return lambda line: f"{line.rpartition(' ')[0]} {v}"


def append_line(block: str, line: str) -> Callable[[dict], None]:
    def apply(r: dict) -> None:
        r["transcript"]["blocks"][block]["text"] += "\n" + line
    return apply


def edit_smart(block: str, key: str, delta: int) -> Callable[[dict], None]:
    def apply(r: dict) -> None:
        b = r["transcript"]["blocks"][block]
        j = json.loads(b["text"])
        j[key] = str(int(j[key]) + delta) if isinstance(j[key], str) else j[key] + delta
        b["text"] = json.dumps(j, indent=2)
    return apply


def edit_marker(event: str, text: str) -> Callable[[dict], None]:
    def apply(r: dict) -> None:
        for m in r["transcript"]["markers"]:
            if m["event"] == event:
                m["text"] = text
                m["args"] = dict(re.findall(r"(\w[\w-]*)=(\S*)", text))
    return apply


def drop_block(block: str) -> Callable[[dict], None]:
    return lambda r: r["transcript"]["blocks"].pop(block)


def edit_text(block: str, pattern: str, repl: str) -> Callable[[dict], None]:
    """Regex-substitutes a block's text; the pattern must match exactly once."""
    def apply(r: dict) -> None:
        b = r["transcript"]["blocks"][block]
        b["text"], n = re.subn(pattern, repl, b["text"])
        assert n == 1, f"{block}: {n} matches of {pattern!r}"
    return apply


def edit_json(block: str, fn: Callable[[dict], None]) -> Callable[[dict], None]:
    """Changes a JSON block (nvme-cli's -o json, nvmonctl --json) in place."""
    def apply(r: dict) -> None:
        b = r["transcript"]["blocks"][block]
        j = json.loads(b["text"])
        fn(j)
        b["text"] = json.dumps(j, indent=2)
    return apply


def status_drive(serial: str, key: str, value) -> Callable[[dict], None]:
    """One field of one drive in `nvmonctl status --json`."""
    def fn(j: dict) -> None:
        [d] = [d for d in j["drives"] if d["serial"] == serial]
        d[key] = value
    return edit_json("status.A", fn)


def set_rc(block: str, rc: int) -> Callable[[dict], None]:
    return lambda r: r["transcript"]["blocks"][block].update(rc=rc)


# (what is doctored, the doctoring, the scenario that must then fail)
CASES: list[tuple[str, Callable[[dict], None], str]] = [
    ("data written off by one data unit",
     edit_metric("metrics.A", "nvme_data_written_bytes_total", {"serial": S0}, add_value(512000)),
     "smart"),
    ("composite temperature off by 1 degree",
     edit_metric("metrics.A", "nvme_temperature_celsius", {"serial": S1, "sensor": "composite"},
                 add_value(1)), "smart"),
    ("a SMART series missing",
     edit_metric("metrics.A", "nvme_media_errors_total", {"serial": S1}, lambda _: None), "smart"),
    ("a series the table does not know",
     append_line("metrics.A", f'nvme_mystery_total{{serial="{S0}"}} 0'), "smart"),
    ("a known name with a label set no row describes",
     append_line("metrics.A", f'nvme_temperature_celsius{{serial="{S0}",sensor="9"}} 20'),
     "smart"),
    ("an OCP series from a drive without the C0 log",
     append_line("metrics.A", f'nvme_ocp_refreshes_total{{serial="{S0}"}} 0'), "smart"),
    ("a self-test series from a drive without Device Self-test",
     append_line("metrics.A", f'nvme_self_test_in_progress{{serial="{S0}"}} 0'), "smart"),
    ("WCTEMP limit wrong",
     edit_metric("metrics.A", "nvme_temperature_limit_celsius", {"serial": S0, "limit": "warning"},
                 add_value(-10)), "smart"),
    ("firmware label wrong",
     edit_metric("metrics.A", "nvme_device_info", {"serial": S0},
                 lambda l: re.sub(r'firmware="[^"]*"', 'firmware="0.0"', l)), "smart"),
    ("data units delta not matching the bytes written",
     edit_smart("smart.A1.nvme0", "data_units_written", 3), "smart"),
    ("nvme-cli evidence missing", drop_block("smart.A2.nvme1"), "smart"),
    ("an error log entry nvme-cli did not read",
     edit_metric("metrics.A", "nvme_error_log_read_entries_total", {"serial": S0, "status_class": "media"},
                 add_value(1)), "smart"),
    ("a status class missing from the error log's series",
     edit_metric("metrics.A", "nvme_error_log_read_entries_total", {"serial": S1, "status_class": "path"},
                 lambda _: None), "smart"),
    ("a link width the kernel does not show",
     edit_metric("metrics.A", "nvme_pcie_link_width_lanes", {"serial": S0, "link": "current"},
                 set_value(4)), "smart"),
    ("a link speed the kernel does not show",
     edit_metric("metrics.A", "nvme_pcie_link_speed_transfers_per_second", {"serial": S1, "link": "max"},
                 set_value(8e9)), "smart"),
    ("a link at its maximum called degraded",
     edit_metric("metrics.A", "nvme_pcie_link_degraded", {"serial": S0}, set_value(1)), "smart"),
    ("a controller on the root complex, not behind a root port",
     edit_text("link.A.nvme1", r"port_class=0x060400", "port_class=0x060000"), "smart"),
    ("a kill -9 whose write cache the next run did not put back",
     edit_text("pts", r"wc_after_kill=1", "wc_after_kill=0"), "pts"),
    ("a run that found the write cache disabled after the kill",
     edit_text("pts", r'(?s)("found": )true(,(?:(?!RUNJSON-BEGIN).)*RUNJSON-END after-kill)', r"\1false\2"), "pts"),
    ("a 4Kn namespace that ran a 512 B test", edit_text("pts", r"kn_512_rc=1", "kn_512_rc=0"), "pts"),
    ("a 512 B refusal that does not name the device",
     edit_text("pts", r"kn_512_said=iops on /dev/nvme1n1 refused: /dev/nvme1n1: ", "kn_512_said=iops refused: "),
     "pts"),
    ("a 4Kn namespace whose 4 KiB run failed", edit_text("pts", r"kn_4k_rc=0", "kn_4k_rc=1"), "pts"),
    ("a 4Kn run whose rounds wrote nothing",
     edit_text("pts", r'(?s)("ops": )[1-9]\d*((?:(?!RUNJSON-BEGIN).)*RUNJSON-END 4kn)', r"\g<1>0\2"), "pts"),
    ("a page QEMU lacks asked for again (said twice)",
     append_line("nvmond.lacks", "nvmond info: /dev/nvme0: no persistent event log: asked again"), "smart"),
    ("a capacity that is not nvme-cli's NSZE << LBADS",
     edit_json("idns.A.nvme1", lambda j: j.update(nsze=j["nsze"] + 1)), "smart"),
    ("nvmonctl status: composite temperature off by 1 degree", status_drive(S0, "composite_c", 51.0), "smart"),
    ("nvmonctl status: WCTEMP off", status_drive(S1, "warning_c", 60.0), "smart"),
    ("nvmonctl status: percentage used not nvme-cli's", status_drive(S0, "percentage_used", 0.01), "smart"),
    ("nvmonctl status: a critical warning nvme-cli does not show",
     status_drive(S1, "critical_warnings", ["spare"]), "smart"),
    ("nvmonctl status: model wrong", status_drive(S0, "model", "QEMU"), "smart"),
    ("nvmonctl status: a media error nvme-cli's error log does not hold",
     status_drive(S1, "media_path_errors", 1), "smart"),
    ("nvmonctl status: a link called degraded the kernel shows at its maximum",
     status_drive(S0, "link_degraded", True), "smart"),
    ("nvmonctl status: a drive missing",
     edit_json("status.A", lambda j: j.update(drives=[d for d in j["drives"] if d["serial"] != S1])), "smart"),
    ("nvme-cli read a self-test log nvmond called absent", set_rc("selftestlog.A.nvme0", 0), "smart"),
    ("nvme-cli read host controlled thermal management nvmond left out", set_rc("hctm.A.nvme1", 0), "smart"),
    ("Identify says the controller has host controlled thermal management",
     edit_json("idctrl.nvme0", lambda j: j.update(hctma=1)), "smart"),
    ("a TMT1 limit from a drive without host controlled thermal management",
     append_line("metrics.A", f'nvme_temperature_limit_celsius{{serial="{S0}",limit="tmt1"}} 70'), "smart"),
    ("nvme-cli read a Persistent Event log nvmond called absent", set_rc("pel.A.nvme1", 0), "smart"),
    ("nvme-cli read controller-initiated telemetry nvmond called absent",
     set_rc("telemetry.A.nvme0", 0), "smart"),
    ("Identify says the controller has the telemetry logs",
     edit_json("idctrl.nvme1", lambda j: j.update(lpa=j["lpa"] | 0x8)), "smart"),
    ("a telemetry series from a drive without the telemetry logs",
     append_line("metrics.A", f'nvmond_telemetry_captures_total{{serial="{S1}",result="saved"}} 0'), "smart"),
    ("a drive without telemetry asked again (said twice)",
     append_line("nvmond.lacks", "nvmond info: /dev/nvme1: no controller-initiated telemetry: asked again"),
     "smart"),
    ("a drive without telemetry never said so",
     edit_text("nvmond.lacks", r"nvmond info: /dev/nvme0: no controller-initiated telemetry:[^\n]*", ""),
     "smart"),
    ("nvmonctl selftest status answered for a drive without Device Self-test",
     set_rc("selftest-status.A.nvme1", 0), "smart"),
    ("temperature bit not exported",
     edit_metric("metrics.C1", "nvme_critical_warning", {"serial": S0, "bit": "temperature"},
                 set_value(0)), "thermal"),
    ("QMP-raised read_only bit not exported",
     edit_metric("metrics.C2", "nvme_critical_warning", {"serial": S1, "bit": "read_only"},
                 set_value(0)), "thermal"),
    ("temperature bit stuck after restore",
     edit_metric("metrics.C3", "nvme_critical_warning", {"serial": S0, "bit": "temperature"},
                 set_value(1)), "thermal"),
    ("removed drive still up",
     edit_metric("metrics.B1", "nvme_up", {"serial": S1}, set_value(1)), "failure"),
    ("remaining drive's counter frozen",
     lambda r: r["transcript"]["blocks"]["metrics.B2"].update(
         text=r["transcript"]["blocks"]["metrics.B1"]["text"]), "failure"),
    ("a scrape failed during removal", edit_marker("scrapes-B", "ok=12 fail=1"), "failure"),
    ("job wrote a data unit more than the controller counted",
     edit_smart("smart.W1.nvme0", "data_units_written", -1), "workload"),
    ("job claims twice the bytes it wrote",
     edit_text("workload", r"bytes_written=(\d+)",
               lambda m: f"bytes_written={2 * int(m.group(1))}"), "workload"),
    ("a write command more than the job's I/Os",
     edit_smart("smart.W1.nvme0", "host_write_commands", 1), "workload"),
    ("the other controller was written during the job",
     edit_smart("smart.W1.nvme1", "data_units_written", 1), "workload"),
    ("the job on a not-allowed serial was not refused",
     edit_text("workload", r"refused_rc=1", "refused_rc=0"), "workload"),
    ("nvmonctl run-job exited non-zero", set_rc("workload", 3), "workload"),
    ("no summary from the job", edit_text("workload", r"bytes_written=\d+", "bytes_written="),
     "workload"),
    # nvmond as root with every capability (setpriv missing or ignored).
    ("nvmond ran with more than the unit's capabilities",
     edit_text("caps.nvmond", r"CapEff:\s*\S+", "CapEff:\t000001ffffffffff"), "caps"),
    ("the bounding set was not the unit's",
     edit_text("caps.nvmond", r"CapBnd:\s*\S+", "CapBnd:\t0000000000220000"), "caps"),
    ("the capabilities of another process", edit_text("caps.nvmond", r"Name:\s*\S+", "Name:\tsetpriv"),
     "caps"),
    ("a drive not read under the unit's capabilities",
     edit_metric("metrics.A", "nvme_up", {"serial": S1}, set_value(0)), "caps"),
    ("no capability evidence", drop_block("caps.nvmond"), "caps"),
]


def outcome(results: dict, scenario: str) -> checks.Report:
    return checks.SCENARIOS[scenario](results)


def explains_a_failed_block(base: dict) -> int:
    """A failed block's evidence quotes its key=value steps, which a tail may
    have cut off, and the host's load over the block's window."""
    r = copy.deepcopy(base)
    block = r["transcript"]["blocks"]["workload"]
    block.update(rc=143, t_begin=100.0, t_end=104.0)
    block["text"] += "\n" + "progress line " * 40
    r["host_samples"] = [{"t": 99.5 + i, "io_some_us": i * 800_000, "cpu_some_us": 0,
                          "dirty_kib": 2048, "writeback_kib": 1024, "qemu_ticks": 0, "load1": 1.5}
                         for i in range(7)]
    text = "\n".join(outcome(r, "workload").lines)
    wanted = ["refused_rc=1", "io stalled 80% of the time", "dirty+writeback up to 3 MiB"]
    missing = [w for w in wanted if w not in text]
    print(f"{'ok  ' if not missing else 'MISS'} a failed block's evidence explains it"
          + (f": lacks {missing} in\n{text}" if missing else ""))
    return 1 if missing else 0


def main() -> int:
    if not FIXTURE.is_file():
        print(f"no fixture {FIXTURE}")
        return 1
    base = json.loads(FIXTURE.read_text())
    bad = 0
    for scenario in ("boot", "smart", "thermal", "failure", "workload", "caps"):
        rep = outcome(base, scenario)
        if not rep.ok:
            bad += 1
            print(f"UNEXPECTED: recorded run fails {scenario}:\n{rep.render(scenario)}")
    for what, doctor, scenario in CASES:
        r = copy.deepcopy(base)
        doctor(r)
        rep = outcome(r, scenario)
        caught = not rep.ok and rep.skipped is None
        print(f"{'ok  ' if caught else 'MISS'} {scenario}: {what}")
        if not caught:
            bad += 1
            print(rep.render(scenario))
        else:
            print("\n".join(f"       {l.strip()}" for l in rep.lines if "FAIL" in l))
    bad += explains_a_failed_block(base)
    print(f"{len(CASES)} doctored cases, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
