#!/usr/bin/env python3
"""Where a drive-poll's CPU time goes, user against system, and which system
calls it makes (a benchmark, not a test: it prints numbers and the machine's
load, and asserts nothing).

For each point (drive count) and each nvmond binary given, interleaved round
by round so that the machine's load falls on every binary alike, it starts
the daemon with N simulated drives polled every --poll, its state directory
on a real file system (/var/tmp), waits until every drive is published and a
warm-up has passed, then:

1. over --window seconds: the daemon's utime and stime (/proc/PID/stat) per
   drive-poll (drive-polls: the rise of nvmond_collections_total);
2. over --strace-window seconds: `strace -c -f` of the running daemon,
   system calls per drive-poll by kind (ptrace slows the daemon, so the CPU
   figures come from the first window only).

  bench/poll_cpu.py [--nvmond build/nvmond --nvmond /tmp/old/nvmond]
                    [--drives 64,256] [--poll 1s] [--rounds 1]
                    [--window 40] [--strace-window 20]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "tests", "integration"))

import store_cost  # noqa: E402  (bench/ is not a package)

TICK = os.sysconf("SC_CLK_TCK")


def times_of(stat_path):
    with open(stat_path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


SUMMARY = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$")


def strace_counts(pid, seconds, out_path):
    """System calls by name over `seconds` of the running daemon (strace -c)."""
    tracer = subprocess.Popen(["strace", "-c", "-f", "-qq", "-o", out_path, "-p", str(pid)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)  # a measurement window, not synchronisation
    tracer.terminate()
    tracer.wait()
    calls = collections.Counter()
    with open(out_path) as f:
        for line in f:
            m = SUMMARY.match(line)
            if m and m.group(2) != "total":
                calls[m.group(2)] += int(m.group(1))
    return calls


def measure(h, nvmond, drives, poll, args):
    h.NVMOND = nvmond
    d = store_cost.start_fleet(h, drives, poll, "pollcpu")
    try:
        time.sleep(args.warmup)  # past the first polls' schema and page allocation
        pid, load = d.proc.pid, os.getloadavg()[0]
        polls0, _ = store_cost.totals(h, d)
        u0, s0 = times_of(f"/proc/{pid}/stat")
        time.sleep(args.window)  # a measurement window, not synchronisation
        u1, s1 = times_of(f"/proc/{pid}/stat")
        polls1, _ = store_cost.totals(h, d)
        calls, strace_polls = collections.Counter(), 0
        if args.strace_window > 0:
            p0, _ = store_cost.totals(h, d)
            calls = strace_counts(pid, args.strace_window, os.path.join(d.dir, "strace-c.txt"))
            p1, _ = store_cost.totals(h, d)
            strace_polls = p1 - p0
    finally:
        d.stop()
    polls = polls1 - polls0
    return {"load": load, "polls": polls, "user_ms": (u1 - u0) * 1e3 / polls, "sys_ms": (s1 - s0) * 1e3 / polls,
            "calls": calls, "strace_polls": strace_polls}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvmond", action="append", help="a binary (repeatable; default build/nvmond)")
    ap.add_argument("--drives", default="64,256")
    ap.add_argument("--poll", default="1s")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--warmup", type=float, default=15)
    ap.add_argument("--window", type=float, default=40)
    ap.add_argument("--strace-window", type=float, default=20)
    ap.add_argument("--top-calls", type=int, default=12)
    args = ap.parse_args()
    binaries = args.nvmond or ["build/nvmond"]
    os.environ.setdefault("NVMOND", binaries[0])
    import nvmond_harness as h

    print(f"{os.cpu_count()} CPUs; load is the 1-minute average when each window began; "
          f"CPU over {args.window:.0f} s, strace -c over {args.strace_window:.0f} s")
    rows = []
    for rnd in range(args.rounds):
        for drives in (int(n) for n in args.drives.split(",")):
            for nvmond in binaries:
                r = measure(h, nvmond, drives, args.poll, args)
                rows.append((rnd, drives, nvmond, r))
                sp = max(r["strace_polls"], 1)
                print(f"\n## round {rnd + 1}, {drives} drives @ {args.poll}, {nvmond}: load {r['load']:.1f}, "
                      f"{r['polls']:.0f} drive-polls; CPU ms / drive-poll user {r['user_ms']:.3f} "
                      f"sys {r['sys_ms']:.3f} total {r['user_ms'] + r['sys_ms']:.3f}", flush=True)
                if r["calls"]:
                    total = sum(r["calls"].values())
                    print(f"   syscalls / drive-poll {total / sp:.1f} ({r['strace_polls']:.0f} drive-polls traced):")
                    for call, n in r["calls"].most_common(args.top_calls):
                        print(f"     {call:22} {n / sp:7.2f}")
    print("\n| drives | binary | round | load | user ms | sys ms | total ms / drive-poll | syscalls / drive-poll |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for rnd, drives, nvmond, r in rows:
        sc = sum(r["calls"].values()) / max(r["strace_polls"], 1) if r["calls"] else float("nan")
        print(f"| {drives} | {nvmond} | {rnd + 1} | {r['load']:.1f} | {r['user_ms']:.3f} | {r['sys_ms']:.3f} | "
              f"{r['user_ms'] + r['sys_ms']:.3f} | {sc:.1f} |")


if __name__ == "__main__":
    main()
