#!/usr/bin/env python3
"""What a fleet costs the host as it grows: 32, 64, 128 and 256 simulated
drives polled every 1 s and every 10 s (a benchmark, not a test: it prints a
table and the machine's load, and asserts nothing).

For each point it starts the built nvmond with its state directory on a real
file system, waits until every drive is published and a warm-up has passed,
then measures, in this order so one measurement does not load the next:

1. a window without scrapes: the daemon's CPU time and write_bytes per
   drive-poll (in brackets the history writer's thread alone: without the
   simulated drives' state files, which a real drive does not have),
   drive-polls and history commits (store_cost.py's method);
2. RSS (VmRSS), and again after the scrapes of 3.;
3. scrapes by curl (an independent client) on one keep-alive connection,
   gzip and identity interleaved, while polling goes on: p50/p99 per
   encoding as curl times them, the daemon's CPU time per scrape (its CPU
   during the scrapes less what polling took in the window before: the
   daemon's own share of a scrape, which a loaded host does not inflate as
   it does the latency), and the exposition's size;
4. an strace window: fsyncs per second of the history and of the simulated
   drives' state files.

  bench/scale.py [--build-dir build] [--drives 32,64,128,256] [--polls 1s,10s]
                 [--window 60] [--scrapes 300] [--strace-window 10]
"""
import argparse
import gzip
import http.client
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "tests", "integration"))

import store_cost  # noqa: E402  (bench/ is not a package)
from scrape_latency import curl_times, percentile  # noqa: E402


def seconds_of(poll):
    return float(poll[:-1]) * {"s": 1, "m": 60}[poll[-1]]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def exposition_sizes(port):
    """Bytes of one identity and one gzip body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sizes = {}
    for enc in ("identity", "gzip"):
        conn.request("GET", "/metrics", headers={"Accept-Encoding": enc})
        r = conn.getresponse()
        body = r.read()
        if enc == "gzip":
            gzip.decompress(body)  # a whole, valid member
        sizes[enc] = len(body)
    conn.close()
    return sizes


def measure(h, drives, poll, args):
    d = store_cost.start_fleet(h, drives, poll, "scale")
    try:
        time.sleep(max(args.warmup, 2 * seconds_of(poll)))  # past the first polls' page allocation
        pid, load = d.proc.pid, os.getloadavg()[0]
        # A whole number of intervals, so the window holds as many ticks'
        # polls as their count says wherever it starts; the scrapes that count
        # them are taken right beside the CPU readings and parsed afterwards.
        window = max(1, round(args.window / seconds_of(poll))) * seconds_of(poll)
        text0 = d.scrape()
        cpu0, bytes0, t0 = store_cost.cpu_seconds(pid), store_cost.write_bytes(pid), time.monotonic()
        history0 = store_cost.history_write_bytes(pid)
        time.sleep(window)  # a measurement window, not synchronisation
        cpu1, bytes1, t1 = store_cost.cpu_seconds(pid), store_cost.write_bytes(pid), time.monotonic()
        history1 = store_cost.history_write_bytes(pid)
        text1 = d.scrape()
        polls0, commits0 = store_cost.totals(h, d, text0)
        polls1, commits1 = store_cost.totals(h, d, text1)
        rss = rss_mib(pid)
        sizes = exposition_sizes(d.port)
        idle_cpu_s = (cpu1 - cpu0) / (t1 - t0)
        cpu2, t2 = store_cost.cpu_seconds(pid), time.monotonic()
        times = curl_times(d.url, args.scrapes)
        cpu3, t3 = store_cost.cpu_seconds(pid), time.monotonic()
        scrape_cpu_ms = 1000 * (cpu3 - cpu2 - idle_cpu_s * (t3 - t2)) / (2 * args.scrapes)
        load_scrapes = os.getloadavg()[0]
        rss_scraped = rss_mib(pid)
        fsyncs = {}
        if args.strace_window > 0:
            fsyncs, _ = store_cost.strace_window(pid, args.strace_window, os.path.join(d.dir, "strace.txt"))
    finally:
        d.stop()
    polls, elapsed = polls1 - polls0, t1 - t0
    return {
        "drives": drives, "poll": poll, "load": load, "load_scrapes": load_scrapes, "scrape_cpu_ms": scrape_cpu_ms,
        "polls_s": polls / elapsed, "commits_s": (commits1 - commits0) / elapsed,
        "cpu_pct": 100 * (cpu1 - cpu0) / elapsed, "cpu_ms": 1000 * (cpu1 - cpu0) / polls,
        "bytes": (bytes1 - bytes0) / polls, "history_bytes": (history1 - history0) / polls, "rss": rss,
        "rss_scraped": rss_scraped,
        "history_fsync": fsyncs.get("history", 0) / args.strace_window if args.strace_window else float("nan"),
        "sim_fsync": fsyncs.get("sim state", 0) / args.strace_window if args.strace_window else float("nan"),
        "kib": sizes["identity"] / 1024, "gz_kib": sizes["gzip"] / 1024,
        "p50": percentile(times["identity"], 0.5) * 1e3, "p99": percentile(times["identity"], 0.99) * 1e3,
        "gz_p50": percentile(times["gzip"], 0.5) * 1e3, "gz_p99": percentile(times["gzip"], 0.99) * 1e3,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--drives", default="32,64,128,256")
    ap.add_argument("--polls", default="1s,10s")
    ap.add_argument("--warmup", type=float, default=10)
    ap.add_argument("--window", type=float, default=60)
    ap.add_argument("--scrapes", type=int, default=300, help="curl scrapes per encoding")
    ap.add_argument("--strace-window", type=float, default=10)
    args = ap.parse_args()
    os.environ.setdefault("NVMOND", os.path.join(args.build_dir, "nvmond"))
    import nvmond_harness as h
    h.NVMOND = os.environ["NVMOND"]

    print(f"{os.cpu_count()} CPUs; load is the 1-minute average when the polling window began, "
          f"and when the {args.scrapes} curl scrapes per encoding ended")
    print("| drives | poll | load | drive-polls/s | commits/s | CPU % of a core | CPU ms / drive-poll | "
          "write_bytes B / drive-poll (history) | history fsync/s | sim state fsync/s | RSS MiB (after the scrapes) | exposition KiB (gzip) | "
          "curl p50 / p99 ms | curl gzip p50 / p99 ms | nvmond CPU ms / scrape |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for poll in args.polls.split(","):
        for drives in (int(n) for n in args.drives.split(",")):
            r = measure(h, drives, poll, args)
            print(f"| {r['drives']} | {r['poll']} | {r['load']:.1f}, {r['load_scrapes']:.1f} | {r['polls_s']:.1f} | {r['commits_s']:.2f} | "
                  f"{r['cpu_pct']:.1f} | {r['cpu_ms']:.2f} | {r['bytes']:,.0f} ({r['history_bytes']:,.0f}) | "
                  f"{r['history_fsync']:.1f} | "
                  f"{r['sim_fsync']:.1f} | {r['rss']:.0f} ({r['rss_scraped']:.0f}) | {r['kib']:,.0f} ({r['gz_kib']:,.0f}) | "
                  f"{r['p50']:.1f} / {r['p99']:.1f} | {r['gz_p50']:.1f} / {r['gz_p99']:.1f} | {r['scrape_cpu_ms']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
