#!/usr/bin/env python3
"""What polling costs the host, per drive-poll (a benchmark, not a test: it
prints numbers and the machine's load, and asserts nothing).

Starts the built nvmond on loopback with N simulated drives polled every
second, its state directory on a real file system (tmpfs writes nothing to a
disk and would read zero), waits until every drive is published and a
warm-up has passed, then over a window of real time reads:

- CPU: user + system time of the daemon (/proc/PID/stat) per drive-poll;
- bytes: the daemon's write_bytes (/proc/PID/io: bytes it caused to be sent
  to the block layer, page-granular) per drive-poll, and the history
  writer thread's own (/proc/PID/task/TID/io of the thread named
  nvmond-history: every commit and WAL checkpoint of the history);
- drive-polls: the rise of nvmond_collections_total over every drive, and
  commits: the rise of nvmond_store_commits_total.

Then, in a second, shorter window (ptrace slows the daemon, so the CPU and
byte figures come from the first), it counts fsync/fdatasync calls and
bytes written with strace, by file: the history (nvmond.db and its WAL) and
the simulated drives' own state files (sim-*.json, which a real drive does not
have), so the history's share of the bytes is known.

  bench/store_cost.py [--build-dir build] [--drives 64] [--window 60] [--strace-window 10]
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))


def cpu_seconds(pid):
    """CPU time of a process so far, in seconds to the nanosecond: the sum of
    its threads' run time (/proc/PID/task/TID/schedstat). /proc/PID/stat
    counts in clock ticks (10 ms), a third of what 32 drives polled every 10 s
    use in 30 s. A thread that exits between two readings takes its time with
    it; the daemon's threads live as long as it does once its drives are up."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tasks = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # the thread exited while the directory was read
    if tasks:
        return total / 1e9
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    raise RuntimeError("no write_bytes in /proc/PID/io")


HISTORY_THREAD = "nvmond-history"


def history_write_bytes(pid):
    """write_bytes of the history writer's thread alone: its commits and WAL
    checkpoints (and compactions), without the simulated drives' state files
    that the pollers write."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() != HISTORY_THREAD:
                    continue
            with open(f"/proc/{pid}/task/{tid}/io") as f:
                for line in f:
                    if line.startswith("write_bytes:"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            continue  # a thread that ended meanwhile
    return total


def start_fleet(h, drives, poll, name):
    """A started nvmond with `drives` simulated drives of every profile (OCP logs on), its state
    on a real file system (/var/tmp, not tmpfs), once every drive is up."""
    profiles = ["datacenter", "consumer", "consumer-heatsink", "generic"]
    cfg = h.config(*(h.sim(f"d{i}", f"{name.upper()}-{i:03d}", profiles[i % 4], write_rate=f"{50 + i}MB",
                           has_ocp=True)
                     for i in range(drives)), poll_interval=poll)
    d = h.Daemon(cfg, workdir=tempfile.mkdtemp(prefix=f"nvmond-{name}-", dir="/var/tmp")).start()
    try:
        h.wait_for(lambda: sum(s.value == 1 for s in h.find(d.metrics(), "nvme_up")) == drives,
                   300, f"{drives} drives up")
    except BaseException:
        d.stop()
        raise
    return d


def totals(h, d, text=None):
    """Drive-polls and commits so far, from a scrape (`text`, or one made now)."""
    m = h.parse(text if text is not None else d.scrape())
    polls = sum(s.value for s in h.find(m, "nvmond_collections_total"))
    commits = sum(s.value for s in h.find(m, "nvmond_store_commits_total"))
    return polls, commits


def kind_of(path):
    base = os.path.basename(path).lstrip(".")
    if base.startswith("nvmond.db"):
        return "history"
    if base.startswith("sim-"):
        return "sim state"
    if base == "state" or path.endswith("/state"):
        return "state directory"
    return "other"


CALL = re.compile(r"^\d+\s+(\w+)\(\d+<([^>]*)>")


def count_calls(trace_path):
    """fsyncs and bytes written by file kind in an `strace -f -y` log. Bytes are
    the count each write asked for (a call cut by another thread's line shows
    its count, not yet its result)."""
    fsyncs, written = collections.Counter(), collections.Counter()
    with open(trace_path) as f:
        for line in f:
            m = CALL.match(line)
            if not m:
                continue  # a "resumed" half, or strace's own notes
            call, path = m.groups()
            kind = kind_of(path)
            if call in ("fsync", "fdatasync"):
                fsyncs[kind] += 1
            else:
                # After the data's closing quote: ", COUNT" (write) or ", COUNT, OFFSET" (pwrite64).
                count = re.match(r"(?:\.\.\.)?, (\d+)", line[line.rfind('"') + 1:])
                if count:
                    written[kind] += int(count.group(1))
    return fsyncs, written


def strace_window(pid, seconds, out_path):
    """fsyncs and bytes written by file kind over `seconds` of the running daemon."""
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-y", "--seccomp-bpf", "-e",
                               "trace=fsync,fdatasync,write,pwrite64", "-o", out_path, "-p", str(pid)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)  # a measurement window, not synchronisation
    tracer.terminate()
    tracer.wait()
    return count_calls(out_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--drives", type=int, default=64)
    ap.add_argument("--poll", default="1s")
    ap.add_argument("--warmup", type=float, default=10)
    ap.add_argument("--window", type=float, default=60)
    ap.add_argument("--strace-window", type=float, default=10)
    args = ap.parse_args()
    os.environ.setdefault("NVMOND", os.path.join(args.build_dir, "nvmond"))
    import nvmond_harness as h
    h.NVMOND = os.environ["NVMOND"]

    profiles = ["datacenter", "consumer", "consumer-heatsink", "generic"]
    cfg = h.config(*(h.sim(f"d{i}", f"COST-{i:03d}", profiles[i % 4], write_rate=f"{50 + i}MB", has_ocp=True)
                     for i in range(args.drives)), poll_interval=args.poll)
    d = h.Daemon(cfg, workdir=tempfile.mkdtemp(prefix="nvmond-cost-", dir="/var/tmp")).start()
    try:
        h.wait_for(lambda: sum(s.value == 1 for s in h.find(d.metrics(), "nvme_up")) == args.drives,
                   120, f"{args.drives} drives up")
        time.sleep(args.warmup)  # let the first polls' schema and page allocation pass
        load = os.getloadavg()
        pid = d.proc.pid
        polls0, commits0 = totals(h, d)
        cpu0, bytes0, t0 = cpu_seconds(pid), write_bytes(pid), time.monotonic()
        hist0 = history_write_bytes(pid)
        time.sleep(args.window)  # a measurement window, not synchronisation
        cpu1, bytes1, t1 = cpu_seconds(pid), write_bytes(pid), time.monotonic()
        hist1 = history_write_bytes(pid)
        polls1, commits1 = totals(h, d)
        polls, commits, elapsed = polls1 - polls0, commits1 - commits0, t1 - t0
        fsyncs, written = collections.Counter(), collections.Counter()
        if args.strace_window > 0 and shutil.which("strace"):
            fsyncs, written = strace_window(pid, args.strace_window, os.path.join(d.dir, "strace.txt"))
        db = os.path.join(d.dir, "state", "nvmond.db")
        db_size = os.path.getsize(db) if os.path.exists(db) else 0
    finally:
        d.stop()

    print(f"{args.drives} drives polled every {args.poll}, {elapsed:.0f} s window, "
          f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} CPUs")
    print(f"drive-polls {polls:.0f} ({polls / elapsed:.1f}/s), commits {commits:.0f} ({commits / elapsed:.2f}/s)")
    print(f"CPU {100 * (cpu1 - cpu0) / elapsed:.1f} % of a core, {1000 * (cpu1 - cpu0) / polls:.3f} ms per drive-poll")
    print(f"write_bytes {(bytes1 - bytes0) / elapsed / 1e3:.1f} kB/s, {(bytes1 - bytes0) / polls:.0f} B per drive-poll")
    print(f"history thread write_bytes {(hist1 - hist0) / elapsed / 1e3:.1f} kB/s, "
          f"{(hist1 - hist0) / polls:.0f} B per drive-poll")
    if fsyncs or written:
        print(f"strace window {args.strace_window:.0f} s, by file (fsync+fdatasync per s, bytes written per s):")
        for kind in sorted(set(fsyncs) | set(written)):
            print(f"  {kind:16} {fsyncs[kind] / args.strace_window:8.1f} fsync/s {written[kind] / args.strace_window / 1e3:10.1f} kB/s")
    print(f"nvmond.db {db_size / 1e6:.1f} MB after the run")


if __name__ == "__main__":
    main()
