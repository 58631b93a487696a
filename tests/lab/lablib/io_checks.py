"""I/O nvmond drives on the real kernel path: phase W (an io_uring job, its
bytes in the controller's counters) and phase P (PTS purge and WSAT)."""
from __future__ import annotations

import json
import re

from .checks import Lab, Report, _guard, check_guest_phase
from .health_checks import _data_units_delta


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
    s0, s1, d0, d1 = lab.drives()
    check_guest_phase(rep, lab, "W")
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
    check_guest_phase(rep, lab, "P")
    # Not a verdict on nvmonctl: QEMU's controller losing commands, recovered
    # by the driver's abort and reset; printed so a slow phase says why.
    kv = dict(re.findall(r"^(nvme_io_timeout_s|nvme_timeouts)=(\d+)$", text, re.M))
    rep.check("nvme_timeouts" in kv, "the guest kernel's I/O timeouts by the end of phase P are known",
              f"{kv.get('nvme_timeouts')} (io_timeout {kv.get('nvme_io_timeout_s')} s)")
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
    check_write_cache(rep, text, wsat, _run_json(text, "after-kill"))
    check_4kn(rep, text, _run_json(text, "4kn"))


def check_4kn(rep: Report, text: str, run: dict | None) -> None:
    """The second controller's namespace has 4096-byte logical blocks: an
    iops run asking for 512-byte blocks is refused before it purges or
    writes anything, naming the device and both sizes; 4 KiB blocks run."""
    values = dict(re.findall(r"^(kn_\w+)=(.*)$", text, re.M))
    rep.check(values.get("kn_logical_block_size") == "4096", "the 4Kn namespace has 4096-byte logical blocks",
              str(values.get("kn_logical_block_size")))
    said = values.get("kn_512_said", "")
    rep.check(values.get("kn_512_rc") == "1" and values.get("kn_512_run_json") == "0"
              and all(part in said for part in ("/dev/nvme1n1", "512 B", "4096 B")),
              "a 512 B iops run on it is refused by name (device, both sizes) and writes no run.json",
              f"{values}")
    rep.check(values.get("kn_4k_rc") == "0" and run is not None and run.get("status") == "completed",
              "a 4 KiB iops run on it completes", f"rc {values.get('kn_4k_rc')}, {run and run.get('status')}")
    if run:
        writes = [e.get("ops", {}).get("write", {}) for e in run.get("elements", [])]
        rep.check(bool(writes) and all(w.get("ops", 0) > 0 and w.get("errors", 1) == 0 for w in writes),
                  "its 4 KiB writes went through without errors", str(writes))


def check_write_cache(rep: Report, text: str, wsat: dict, after_kill: dict | None) -> None:
    """QEMU's controller has a volatile write cache, enabled: a run disables
    it for the test (PTS-E) and puts it back; after kill -9 it stays disabled
    until the next run on the drive puts it back."""
    wc = wsat.get("write_cache", {})
    rep.check(wc.get("found") is True and wc.get("during") is False and bool(wc.get("restored_at")),
              "wsat found the write cache enabled, ran with it disabled and put it back", str(wc))
    rep.check(not any(c.get("name", "").startswith("write-cache") for c in wsat.get("conditions", [])),
              "wsat is conformant on the write cache", str(wsat.get("conditions")))
    values = dict(re.findall(r"^(wc_\w+|kill_round_seen|after_kill_rc)=(\S*)", text, re.M))
    want = {"wc_after_runs": "1", "kill_round_seen": "1", "wc_during": "0", "wc_killed": "0",
            "after_kill_rc": "0", "wc_after_kill": "1"}
    rep.check(all(values.get(k) == v for k, v in want.items()),
              "nvme-cli reads the cache enabled after the runs, disabled during a run and after its kill -9, "
              "enabled again after the next run", f"{values} (want {want})")
    rep.check(after_kill is not None and after_kill.get("write_cache", {}).get("found") is True,
              "the run after the kill found the cache enabled (the killed run's was put back first)",
              str(after_kill and after_kill.get("write_cache")))

