#!/usr/bin/env python3
"""A/B benchmark: nvmond's io_uring engine against fio on the same targets.

Targets: a loop device over a file in tmpfs (/dev/shm) and a file on disk.
Jobs: 4 KiB random read and random write at QD32, 1 and 2 threads; then
latency agreement at QD1 and at a fixed rate below saturation.
fio runs twice: with default io_uring options and with its fastest ones
(fixedbufs, registerfiles, no hipri, no sqthread_poll). Runs are interleaved
A/B/C for several rounds; CPU time of each run comes from wait4() on the child
process (user + system), the same way for both tools.

Usage (as root for the loop device):
  bench/fio_compare.py --build-dir build-workloads [--runtime 3] [--rounds 3]
Prints a Markdown table; not part of the test suite.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

def run_child(argv):
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read().decode()
        out.seek(0)
        text = out.read().decode()
    if p.returncode not in (0,):
        raise RuntimeError(f"{argv[0]} failed ({p.returncode}): {err[-2000:]}")
    return text, ru.ru_utime + ru.ru_stime

def nvmond_run(args, target, op, threads, qd, runtime, rate_iops=0, direct=True):
    allow = os.path.dirname(os.path.realpath(args.backing_for.get(target, target)))
    job = f"""
[safety]
allow_dirs = ["{allow}"]
[[job]]
name = "bench"
target = "{target}"
bs = "4KiB"
read_pct = {100 if op == 'read' else 0}
threads = {threads}
queue_depth = {qd}
runtime = "{runtime}s"
direct = {'true' if direct else 'false'}
"""
    if rate_iops:
        job += f"rate_iops = {rate_iops}\n"
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(job)
        path = f.name
    try:
        text, cpu = run_child([args.nvmond, path])
    finally:
        os.unlink(path)
    r = json.loads(text.splitlines()[0])
    o = r[op]
    lat = o["latency_seconds"]
    return {"iops": o["iops"], "ios": o["ops"], "cpu": cpu,
            "p50": lat["p50"], "p99": lat["p99"], "p99.9": lat["p99.9"]}

def fio_run(target, op, threads, qd, runtime, fast, rate_iops=0, direct=True):
    argv = ["fio", "--name=bench", f"--filename={target}", "--ioengine=io_uring",
            f"--direct={1 if direct else 0}", "--bs=4k", f"--rw={'randread' if op == 'read' else 'randwrite'}",
            f"--iodepth={qd}", f"--numjobs={threads}", "--group_reporting", "--time_based",
            f"--runtime={runtime}", "--output-format=json", "--lat_percentiles=1",
            "--percentile_list=50:99:99.9", "--norandommap", "--randrepeat=0"]
    if fast:
        argv += ["--fixedbufs=1", "--registerfiles=1", "--hipri=0", "--sqthread_poll=0"]
    if rate_iops:
        argv += [f"--rate_iops={rate_iops // threads}"]
    text, cpu = run_child(argv)
    j = json.loads(text[text.index("{"):])
    o = j["jobs"][0][op]
    pct = o["lat_ns"].get("percentile", {})
    def p(key):
        return pct.get(key, 0) * 1e-9
    return {"iops": o["iops"], "ios": o["total_ios"], "cpu": cpu,
            "p50": p("50.000000"), "p99": p("99.000000"), "p99.9": p("99.900000")}

TOOLS = ["nvmond", "fio-default", "fio-fast"]

def one(args, tool, target, op, threads, qd, runtime, rate=0, direct=True):
    if tool == "nvmond":
        return nvmond_run(args, target, op, threads, qd, runtime, rate, direct)
    return fio_run(target, op, threads, qd, runtime, tool == "fio-fast", rate, direct)

def ab(args, target, op, threads, qd, runtime, rate=0, direct=True):
    res = {t: [] for t in TOOLS}
    for _ in range(args.rounds):
        for t in TOOLS:
            res[t].append(one(args, t, target, op, threads, qd, runtime, rate, direct))
    return res

def med(rs, key):
    return statistics.median(r[key] for r in rs)

def cpu_per_mio(rs):
    return statistics.median(r["cpu"] / r["ios"] * 1e6 for r in rs)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build-workloads")
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size-mib", type=int, default=512)
    ap.add_argument("--disk-dir", default=None)
    args = ap.parse_args()
    args.nvmond = os.path.join(args.build_dir, "bench", "nvmond_run_job")
    args.backing_for = {}
    shm_dir = tempfile.mkdtemp(prefix="nvmond-bench-", dir="/dev/shm")
    disk_dir = args.disk_dir or tempfile.mkdtemp(prefix="nvmond-bench-", dir=os.path.abspath(args.build_dir))
    shm_file = os.path.join(shm_dir, "loop.img")
    disk_file = os.path.join(disk_dir, "target.img")
    for f in (shm_file, disk_file):
        subprocess.run(["dd", "if=/dev/urandom", f"of={f}", "bs=1M", f"count={args.size_mib}",
                        "status=none"], check=True)
    loop = subprocess.run(["losetup", "-f", "--show", shm_file], capture_output=True, text=True)
    targets = []
    if loop.returncode == 0:
        dev = loop.stdout.strip()
        args.backing_for[dev] = shm_file
        targets.append(("loop over tmpfs", dev, True))
    else:
        print(f"(no loop device: {loop.stderr.strip()})", file=sys.stderr)
    targets.append(("file on disk", disk_file, True))
    try:
        print(f"runtime {args.runtime}s per run, {args.rounds} interleaved rounds, medians\n")
        print("| target | job | tool | IOPS | CPU s / M I/O | IOPS vs fio-fast | CPU vs fio-fast |")
        print("|---|---|---|---:|---:|---:|---:|")
        for tname, target, direct in targets:
            for op in ("read", "write"):
                for threads in (1, 2):
                    res = ab(args, target, op, threads, 32, args.runtime, 0, direct)
                    base_iops = med(res["fio-fast"], "iops")
                    base_cpu = cpu_per_mio(res["fio-fast"])
                    for t in TOOLS:
                        iops = med(res[t], "iops")
                        cpu = cpu_per_mio(res[t])
                        print(f"| {tname} | rand{op} 4k QD32 x{threads} | {t} | {iops:,.0f} | {cpu:.3f} | "
                              f"{iops / base_iops:.2f} | {cpu / base_cpu:.2f} |", flush=True)
        print("\nLatency agreement (4 KiB random read, loop over tmpfs unless absent)\n")
        print("| case | tool | p50 µs | p99 µs | p99.9 µs | p50 vs fio-fast | p99 vs fio-fast | p99.9 vs fio-fast |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        tname, target, direct = targets[0]
        for case, qd, rate in (("QD1", 1, 0), ("QD4 at 20k IOPS", 4, 20000)):
            res = ab(args, target, "read", 1, qd, args.runtime, rate, direct)
            base = {k: med(res["fio-fast"], k) for k in ("p50", "p99", "p99.9")}
            for t in TOOLS:
                v = {k: med(res[t], k) for k in ("p50", "p99", "p99.9")}
                print(f"| {case} | {t} | {v['p50']*1e6:.1f} | {v['p99']*1e6:.1f} | {v['p99.9']*1e6:.1f} | "
                      f"{v['p50']/base['p50']:.3f} | {v['p99']/base['p99']:.3f} | {v['p99.9']/base['p99.9']:.3f} |",
                      flush=True)
    finally:
        if loop.returncode == 0:
            subprocess.run(["losetup", "-d", loop.stdout.strip()])
        for f in (shm_file, disk_file):
            try:
                os.unlink(f)
            except OSError:
                pass
        for d in (shm_dir,) + ((disk_dir,) if not args.disk_dir else ()):
            try:
                os.rmdir(d)
            except OSError:
                pass

if __name__ == "__main__":
    main()
