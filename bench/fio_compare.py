#!/usr/bin/env python3
"""A/B benchmark: nvmond's io_uring engine against fio on the same target.

One command, as root (it makes a loop device over a file in /dev/shm):
  bench/fio_compare.py --build-dir build --quick     # < 5 minutes
  bench/fio_compare.py --build-dir build             # full: more and longer runs, a disk file too

Cases (4 KiB random read unless named): QD1; QD1 at 5k IOPS; QD4 at 10k and
20k IOPS; QD8 at 40k IOPS; 70/30 random read/write at QD8; sequential 128 KiB
read at QD8; QD32 (throughput and CPU). fio runs with its fastest io_uring
options (fixedbufs, registerfiles, no hipri, no sqthread_poll, and a 1 ns
timer slack as nvmond's workers set for themselves) and, in full mode, with
its defaults too (fio-default: also the default 50 µs timer slack). Each
repetition runs every tool once on the same target, one after the other; a case's ratios are computed within each
repetition (nvmond over the fio-fast run next to it) and the table shows the
median of those ratios, so slow drifts of a shared machine cancel.

Latency is fio's total latency (lat_ns = slat + clat, from the moment the I/O
is prepared to its completion) and nvmond's (from just before queue() to the
I/O's own completion). "blk mean" is the block layer's own mean for the
requests of the run: the delta of time_in_queue (ms, field 11 of
/sys/block/loopN/stat) over the delta of completed reads + writes;
"- blk" is the tool's mean latency minus it: the time the tool adds around the
block layer (submission, wake-up, reaping).
CPU is user+system seconds of the whole child (wait4), per million I/Os.
For nvmond it also prints what histogram_quantile() would read from the
exported buckets against the exact p99 / p99.9.
Prints Markdown; not part of the test suite.
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


PR_SET_TIMERSLACK = 29


def tight_timer_slack():
    """In the child before exec: a 1 ns timer slack, inherited by fio's job
    processes. nvmond's workers set the same for themselves (runner.cpp); with
    the default 50 µs a sleeping rate limiter wakes up to 50 µs late, falls
    behind its schedule and then issues in bursts that queue behind each
    other, so the reference would measure its own oversleeping."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(1), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_TIMERSLACK)")


def run_child(argv, preexec=None, cpus=None):
    def setup_child():
        if cpus:
            os.sched_setaffinity(0, cpus)
        if preexec:
            preexec()

    with tempfile.TemporaryFile() as out:
        # Its own session, as fio's job processes make themselves (setsid) and
        # as a systemd service is: with sched_autogroup a session is a CPU
        # group, and on a busy machine one that shares its session with
        # compilers waits milliseconds for the CPU after each wake-up.
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=setup_child)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read().decode()
        out.seek(0)
        text = out.read().decode()
    if p.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({p.returncode}): {err[-2000:]}")
    return text, ru.ru_utime + ru.ru_stime


class Case:
    def __init__(self, name, qd, rw="randread", bs=4096, rate=0, threads=1, mix=100, lat=True):
        self.name, self.qd, self.rw, self.bs, self.rate = name, qd, rw, bs, rate
        self.threads, self.mix, self.lat = threads, mix, lat


def own_case(text):
    """A --case: keys of Case, named by what was asked for."""
    kv = dict(item.split("=", 1) for item in text.split(","))
    known = {"qd", "bs", "rate", "rw", "mix", "threads"}
    if not kv.keys() <= known or "qd" not in kv:
        sys.exit(f"--case {text}: needs qd=, may have {', '.join(sorted(known))}")
    ints = {k: int(v) for k, v in kv.items() if k != "rw"}
    return Case(f"own: {text}", ints.pop("qd"), rw=kv.get("rw", "randread"), **ints)


def block_stat(dev):
    """(completed requests, time_in_queue ms) of a block device, or None."""
    if not dev or not dev.startswith("/dev/"):
        return None
    with open(f"/sys/block/{os.path.basename(dev)}/stat") as f:
        v = [int(x) for x in f.read().split()]
    return v[0] + v[4], v[10]


def nvmond_run(binary, args, target, c, runtime, pinned=True):
    allow = os.path.dirname(os.path.realpath(args.backing_for.get(target, target)))
    job = f"""
[safety]
allow_dirs = ["{allow}"]
[[job]]
name = "bench"
target = "{target}"
bs = "{c.bs}"
read_pct = {c.mix if c.rw != 'randwrite' else 0}
pattern = "{'sequential' if c.rw == 'read' else 'random'}"
threads = {c.threads}
queue_depth = {c.qd}
runtime = "{runtime}s"
direct = true
pin_cpus = {'true' if pinned else 'false'}
"""
    if c.rate:
        job += f"rate_iops = {c.rate}\n"
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(job)
        path = f.name
    try:
        text, cpu = run_child([binary, path], cpus=args.cpus)
    finally:
        os.unlink(path)
    r = json.loads(text.splitlines()[0])
    ops = r["read"]["ops"] + r["write"]["ops"]
    op = "write" if c.rw == "randwrite" else "read"
    lat = r[op]["latency_seconds"]
    mean = sum(r[o]["latency_seconds"]["mean"] * r[o]["ops"] for o in ("read", "write")) / max(ops, 1)
    hq = lat.get("histogram_quantile", {})
    return {"iops": ops / r["elapsed_seconds"], "ios": ops, "cpu": cpu, "mean": mean,
            "p50": lat["p50"], "p99": lat["p99"], "p99.9": lat["p99.9"],
            "h99": hq.get("p99"), "h99.9": hq.get("p99.9")}


def fio_run(target, c, runtime, fast, pinned=False, tight=False, cpus=None):
    rw = {"randread": "randread", "randwrite": "randwrite", "randrw": "randrw", "read": "read"}[c.rw]
    argv = ["fio", "--name=bench", f"--filename={target}", "--ioengine=io_uring", "--direct=1",
            f"--bs={c.bs}", f"--rw={rw}", f"--iodepth={c.qd}", f"--numjobs={c.threads}",
            "--group_reporting", "--time_based", f"--runtime={runtime}", "--output-format=json",
            "--lat_percentiles=1", "--percentile_list=50:99:99.9", "--norandommap", "--randrepeat=0"]
    if c.rw == "randrw":
        argv.append(f"--rwmixread={c.mix}")
    if fast:
        argv += ["--fixedbufs=1", "--registerfiles=1", "--hipri=0", "--sqthread_poll=0"]
    if pinned:  # each job on a CPU of its own, as nvmond's pin_cpus does
        allowed = ",".join(str(c) for c in sorted(cpus or os.sched_getaffinity(0)))
        argv += [f"--cpus_allowed={allowed}", "--cpus_allowed_policy=split"]
    if c.rate:
        # fio's rate_iops is per direction (one value: reads and writes each);
        # nvmond's is the job's total, so a mix gets its share per direction.
        per_job = c.rate // c.threads
        if c.rw == "randrw":
            argv.append(f"--rate_iops={per_job * c.mix // 100},{per_job * (100 - c.mix) // 100}")
        else:
            argv.append(f"--rate_iops={per_job}")
    text, cpu = run_child(argv, tight_timer_slack if tight else None, cpus)
    j = json.loads(text[text.index("{"):])["jobs"][0]
    op = "write" if c.rw == "randwrite" else "read"
    pct = j[op]["lat_ns"].get("percentile", {})
    ios = j["read"]["total_ios"] + j["write"]["total_ios"]
    mean = sum(j[o]["lat_ns"]["mean"] * j[o]["total_ios"] for o in ("read", "write")) / max(ios, 1) * 1e-9
    return {"iops": j["read"]["iops"] + j["write"]["iops"], "ios": ios, "cpu": cpu, "mean": mean,
            "p50": pct.get("50.000000", 0) * 1e-9, "p99": pct.get("99.000000", 0) * 1e-9,
            "p99.9": pct.get("99.900000", 0) * 1e-9}


def one(args, tool, target, c, runtime):
    tool = tool.removesuffix(" again")
    before = block_stat(target)
    if tool.startswith("nvmond"):
        binary = args.before if tool == "nvmond-before" else args.nvmond
        r = nvmond_run(binary, args, target, c, runtime, pinned=tool != "nvmond-unpinned")
    else:
        fast = tool in ("fio-fast", "fio-pinned", "fio-loose")
        r = fio_run(target, c, runtime, fast, tool == "fio-pinned", tight=fast and tool != "fio-loose",
                    cpus=args.cpus)
    after = block_stat(target)
    if before and after and after[0] > before[0]:
        r["blk"] = (after[1] - before[1]) * 1e-3 / (after[0] - before[0])
    return r


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def us(x):
    return f"{x * 1e6:.1f}"


def run_case(args, tname, target, c):
    res = {t: [] for t in args.tools}
    loads = []
    for _ in range(args.reps):
        loads.append(os.getloadavg()[0])
        for t in args.tools:
            res[t].append(one(args, t, target, c, args.runtime))
    base = res[args.base]
    rows = []
    for t in args.tools:
        rs = res[t]
        def ratio(key):
            return med([a[key] / b[key] if b[key] else None for a, b in zip(rs, base)])
        cpu = [a["cpu"] / a["ios"] * 1e6 for a in rs]
        cpu_base = [b["cpu"] / b["ios"] * 1e6 for b in base]
        extra = [a["mean"] - a["blk"] if "blk" in a else None for a in rs]
        row = (f"| {tname} | {c.name} | {t} | {med([a['iops'] for a in rs]):,.0f} | "
               f"{us(med([a['p50'] for a in rs]))} | {us(med([a['p99'] for a in rs]))} | "
               f"{us(med([a['p99.9'] for a in rs]))} | {us(med([a['mean'] for a in rs]))} | "
               f"{us(med(extra))} | {med(cpu):.2f} | {ratio('iops'):.2f} | {ratio('p50'):.3f} | "
               f"{ratio('p99'):.3f} | {ratio('p99.9'):.3f} | "
               f"{med([a / b for a, b in zip(cpu, cpu_base)]):.2f} | "
               f"{(med([a['iops'] for a in rs]) / c.rate) if c.rate else float('nan'):.3f} |")
        rows.append(row)
        print(row, flush=True)
    spread = []
    for t in args.tools:
        # fio against fio too: the spread of one reference against another
        # is the noise floor any nvmond ratio is read against.
        if t != args.base:
            cells = []
            for key in ("iops", "p50", "p99", "p99.9"):
                rs = [a[key] / b[key] for a, b in zip(res[t], base) if b[key]]
                cells.append(f"{min(rs):.2f}–{max(rs):.2f}" if rs else "")
            spread.append(f"| {tname} | {c.name} | {t} | " + " | ".join(cells) + " |")
    # Each repetition on its own: the medians above hide which runs met the
    # goal, and on a shared machine the load at each one says why.
    per_rep = []
    for t in args.tools:
        if t == args.base:
            continue
        for i, (a, b) in enumerate(zip(res[t], base)):
            above = [us(x["mean"] - x["blk"]) if "blk" in x else "" for x in (a, b)]
            per_rep.append(f"| {tname} | {c.name} | {t} | {i + 1} | {loads[i]:.1f} | {a['iops']:,.0f} | "
                           f"{b['iops']:,.0f} | {a['iops'] / b['iops'] if b['iops'] else float('nan'):.2f} | "
                           f"{above[0]} | {above[1]} |")
    hist = []
    for a in res["nvmond"]:
        for k in ("99", "99.9"):
            if a.get("h" + k) and a["p" + k]:
                hist.append((k, a["h" + k] / a["p" + k] - 1))
    return hist, spread, per_rep


def cpu_times():
    """(steal, total) jiffies of all CPUs, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[7], sum(v[:8])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--quick", action="store_true", help="3 repetitions of 2 s, loop device only (< 5 min)")
    ap.add_argument("--runtime", type=int, help="seconds per run (quick 2, full 5)")
    ap.add_argument("--reps", type=int, help="interleaved repetitions (quick 3, full 7)")
    ap.add_argument("--only", help="run only cases whose name contains this")
    ap.add_argument("--case", action="append", default=[], metavar="K=V,...",
                    help="a case of your own, e.g. qd=16,bs=16384,rate=8000,rw=randrw,mix=70,threads=1 "
                         "(repeatable; added to the listed cases --only keeps, so --only none runs only these)")
    ap.add_argument("--before", help="another nvmond_run_job binary (e.g. main's) to run as nvmond-before")
    ap.add_argument("--size-mib", type=int, default=512)
    ap.add_argument("--fio-pinned", action="store_true",
                    help="also run fio-fast with each job pinned to a CPU (cpus_allowed, policy split)")
    ap.add_argument("--fio-loose", action="store_true",
                    help="also run fio-fast with the default 50 us timer slack (fio-loose), as runs before 2026-12-02 did")
    ap.add_argument("--repeat-base", action="store_true",
                    help="run the base setup twice per repetition ('BASE again'): the noise floor of a tool against itself")
    ap.add_argument("--nvmond-unpinned", action="store_true",
                    help="also run nvmond with pin_cpus = false (the kernel places its thread)")
    ap.add_argument("--base", default="fio-fast", help="the tool ratios are against (fio-fast or fio-pinned)")
    ap.add_argument("--disk-dir", default=None)
    ap.add_argument("--cpus", help="run every tool on these CPUs only (e.g. 1): the same placement for all; "
                                   "with one CPU, pinned and unpinned setups run alike")
    args = ap.parse_args()
    args.cpus = {int(x) for x in args.cpus.split(",")} if args.cpus else None
    args.runtime = args.runtime or (2 if args.quick else 5)
    args.reps = args.reps or (3 if args.quick else 7)
    args.tools = (["nvmond", "fio-fast"] + (["fio-pinned"] if args.fio_pinned else [])
                  + (["fio-loose"] if args.fio_loose else [])
                  + ([] if args.quick else ["fio-default"])
                  + (["nvmond-before"] if args.before else [])
                  + (["nvmond-unpinned"] if args.nvmond_unpinned else []))
    if args.repeat_base:
        args.tools.append(args.base + " again")
    args.nvmond = os.path.join(args.build_dir, "bench", "nvmond_run_job")
    if not os.access(args.nvmond, os.X_OK):
        sys.exit(f"{args.nvmond} missing: build it first (ninja -C {args.build_dir} nvmond_run_job)")
    args.backing_for = {}

    cases = [
        Case("QD1", 1),
        Case("QD1 at 5k IOPS", 1, rate=5000),
        Case("QD4 at 10k IOPS", 4, rate=10000),
        Case("QD4 at 20k IOPS", 4, rate=20000),
        Case("QD8 at 40k IOPS", 8, rate=40000),
        Case("randrw 70/30 QD8 (read lat)", 8, rw="randrw", mix=70),
        Case("seq read 128 KiB QD8", 8, rw="read", bs=128 * 1024),
        Case("QD32", 32),
    ]
    if not args.quick:
        cases += [Case("randwrite QD32", 32, rw="randwrite"), Case("QD32 x2", 32, threads=2)]
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    if args.case:
        cases += [own_case(text) for text in args.case]

    shm_dir = tempfile.mkdtemp(prefix="nvmond-bench-", dir="/dev/shm")
    shm_file = os.path.join(shm_dir, "loop.img")
    made = [shm_file]
    subprocess.run(["dd", "if=/dev/urandom", f"of={shm_file}", "bs=1M", f"count={args.size_mib}",
                    "status=none"], check=True)
    loop = subprocess.run(["losetup", "-f", "--show", shm_file], capture_output=True, text=True)
    targets = []
    if loop.returncode == 0:
        dev = loop.stdout.strip()
        args.backing_for[dev] = shm_file
        targets.append(("loop/tmpfs", dev))
    else:
        print(f"(no loop device: {loop.stderr.strip()})", file=sys.stderr)
    disk_dir = None
    if not args.quick or not targets:
        disk_dir = args.disk_dir or tempfile.mkdtemp(prefix="nvmond-bench-", dir=os.path.abspath(args.build_dir))
        disk_file = os.path.join(disk_dir, "target.img")
        subprocess.run(["dd", "if=/dev/urandom", f"of={disk_file}", "bs=1M", f"count={args.size_mib}",
                        "status=none"], check=True)
        made.append(disk_file)
        targets.append(("file on disk", disk_file))
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"load average {load[0]:.1f} at start; {args.runtime} s per run, {args.reps} interleaved "
          f"repetitions; medians, ratios vs {args.base} are medians of per-repetition ratios\n")
    print("| target | case | tool | IOPS | p50 µs | p99 µs | p99.9 µs | mean µs | mean - blk µs | "
          "CPU s/M I/O | IOPS x | p50 x | p99 x | p99.9 x | CPU x | rate delivered |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    hist, spreads, per_reps = [], [], []
    steal0 = cpu_times()
    try:
        for tname, target in targets:
            for c in cases:
                if tname != targets[0][0] and c.threads == 1 and c.qd != 32:
                    continue  # latency cases on the first target only
                h, sp, pr = run_case(args, tname, target, c)
                hist += h
                spreads += sp
                per_reps += pr
        # The medians hide how far apart the repetitions were: a ratio whose
        # range spans the goal is not a measurement of it.
        print(f"\nPer-repetition ratios against {args.base}, lowest–highest (other fio setups: the noise floor):\n")
        print("| target | case | tool | IOPS x | p50 x | p99 x | p99.9 x |")
        print("|---|---|---|---:|---:|---:|---:|")
        print("\n".join(spreads))
        print(f"\nEach repetition against {args.base} (load: 1-minute average when the repetition began; "
              f"- blk: mean latency minus the block layer's mean):\n")
        print(f"| target | case | tool | rep | load | IOPS | {args.base} IOPS | IOPS x | - blk µs | "
              f"{args.base} - blk µs |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        print("\n".join(per_reps))
        if hist:
            print("\nnvmond's histogram_quantile() on its exported buckets against its exact quantile, all runs:\n")
            for k in ("99", "99.9"):
                errs = [abs(e) for q, e in hist if q == k]
                print(f"- p{k}: median error {statistics.median(errs) * 100:.2f} %, "
                      f"max {max(errs) * 100:.2f} % over {len(errs)} runs")
        steal1 = cpu_times()
        stolen = (steal1[0] - steal0[0]) / max(steal1[1] - steal0[1], 1)
        # Time the hypervisor gave to other guests: above a few per cent the
        # run's latencies measure the host, not the tools.
        print(f"\nload average at end {os.getloadavg()[0]:.1f}; steal {stolen * 100:.1f} % of CPU time")
    finally:
        if loop.returncode == 0:
            subprocess.run(["losetup", "-d", loop.stdout.strip()])
        for f in made:
            try:
                os.unlink(f)
            except OSError:
                pass
        for d in [shm_dir] + ([disk_dir] if disk_dir and not args.disk_dir else []):
            try:
                os.rmdir(d)
            except OSError:
                pass


if __name__ == "__main__":
    main()
