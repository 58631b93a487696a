#!/usr/bin/env python3
"""Instructions per drive-poll: the built nvmond under valgrind's callgrind
with simulated drives polled every second (a benchmark, not a test: it
prints one line and asserts nothing).

Instruction counts, not seconds: callgrind counts the same for the same
binary and inputs whatever else the machine runs. Start-up is left out:
after a warm-up the counters are zeroed (callgrind_control --zero), and the
count dumped after the window is divided by the drive-polls the daemon
counted in it (nvmond_collections_total, scraped at both ends; the second
scrape's own cost, under 0.1 % of a window, is inside it).

  bench/poll_cost.py [--nvmond build/nvmond] [--drives 8] [--warmup 20] [--window 90]
                     [--keep DIR]   (keep the callgrind dump for callgrind_annotate)
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))


def polls(h, d):
    return sum(s.value for s in h.find(d.metrics(), "nvmond_collections_total"))


def dumped_instructions(pattern):
    """The Ir total of the newest dump matching `pattern`."""
    path = max(glob.glob(pattern), key=os.path.getmtime)
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1]), path
    raise RuntimeError(f"no totals in {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvmond", default="build/nvmond")
    ap.add_argument("--drives", type=int, default=8)
    ap.add_argument("--warmup", type=float, default=20, help="seconds after every drive is up")
    ap.add_argument("--window", type=float, default=90, help="seconds counted")
    ap.add_argument("--keep", help="directory to keep the dump in")
    args = ap.parse_args()
    import nvmond_harness as h

    profiles = ["datacenter", "consumer", "consumer-heatsink", "generic"]
    cfg = h.config(*(h.sim(f"d{i}", f"COST-{i:03d}", profiles[i % 4], write_rate=f"{50 + i}MB", has_ocp=True)
                     for i in range(args.drives)), poll_interval="1s")
    d = h.Daemon(cfg, workdir=tempfile.mkdtemp(prefix="nvmond-pollcost-", dir="/var/tmp"))
    out_dir = args.keep or d.dir
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "callgrind.out")
    d.log = open(d.log_path, "ab")
    d.proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", args.nvmond,
                               "--config", d.config], stdout=d.log, stderr=subprocess.STDOUT)
    try:
        h.wait_for(lambda: d.try_scrape(timeout=30) is not None, 300, "nvmond under callgrind to serve")
        h.wait_for(lambda: sum(s.value == 1 for s in h.find(d.metrics(), "nvme_up")) == args.drives,
                   300, f"{args.drives} drives up")
        time.sleep(args.warmup)  # past the first polls (history restore, page allocation)
        load = os.getloadavg()[0]
        p0 = polls(h, d)
        subprocess.run(["callgrind_control", "--zero", str(d.proc.pid)], check=True, capture_output=True)
        time.sleep(args.window)  # a measurement window, not synchronisation
        p1 = polls(h, d)
        subprocess.run(["callgrind_control", "--dump", str(d.proc.pid)], check=True, capture_output=True)
        instructions, path = dumped_instructions(out + "*")
    finally:
        d.proc.terminate()
        d.proc.wait(60)
    n = p1 - p0
    print(f"{args.nvmond}: {instructions:,} instructions / {n:.0f} drive-polls = "
          f"{instructions / n / 1e6:.3f} M per drive-poll ({args.drives} drives, load {load:.1f}; dump {path})")


if __name__ == "__main__":
    main()
