#!/usr/bin/env python3
"""The daemon watched for hours on a real clock (a benchmark, not a test: it
records and prints, and asserts nothing but that the daemon kept running).

As root it starts the built nvmond with
- a PTS WSAT `[[soak]]` on a loop device over a file in /dev/shm, in real
  rounds of `--round` (60 s) for the whole `--duration`;
- a rate-limited random-write `[[job]]` on a second loop device;
- `--fleet` simulated drives polled every `--poll` for the fleet side;
and every `--every` (60 s) samples the process (RSS, open descriptors,
threads, CPU), the state directory (each database and its WAL, the log's
bytes), scrapes with curl (identity and gzip, `--scrapes` each: p50/p99),
the latency families' size in the exposition, and the soak's finished
rounds with their measured lengths against the configured one.

It writes OUT.json (`duration_s`, `rss_slope_bytes_per_h`, `fd_slope_per_h`,
`thread_slope_per_h`, `scrape_p99_ms`, the rounds' worst deviation and every
sample) and OUT.svg (RSS and scrape latency over time), and prints the
slopes extrapolated to 10 h and 100 h. Slopes are least-squares fits over
the samples after the warm-up (`--warmup`, default 10 % of the run, at
least one sample), so page-cache and first-allocation growth does not read
as a leak.

  sudo bench/long_soak.py [--build-dir build] [--duration 2h] [--every 60s]
                          [--round 60s] [--fleet 32] [--poll 1s] [--out PATH]
  sudo bench/long_soak.py --duration 2m --every 10s --round 5s   # the smoke run
"""
import argparse
import datetime
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "tests", "integration"))

import store_cost  # noqa: E402  (bench/ is not a package)
from scrape_latency import curl_times, percentile  # noqa: E402

UNITS = {"s": 1, "m": 60, "h": 3600}


def seconds_of(text):
    return float(text[:-1]) * UNITS[text[-1]]


def slope_per_hour(points):
    """Least-squares slope of (seconds, value) pairs, per hour; 0 for fewer than two."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    sxx = sum((t - mx) ** 2 for t, _ in points)
    if sxx == 0:
        return 0.0
    return 3600 * sum((t - mx) * (v - my) for t, v in points) / sxx


class Process:
    """What /proc says of one process."""

    def __init__(self, pid):
        self.pid = pid

    def status(self, key):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        raise KeyError(key)

    def rss_bytes(self):
        return self.status("VmRSS") * 1024

    def threads(self):
        return self.status("Threads")

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def cpu_seconds(self):
        return store_cost.cpu_seconds(self.pid)


class LoopDevice:
    def __init__(self, directory, name, size):
        self.image = os.path.join(directory, name)
        with open(self.image, "wb") as f:
            f.truncate(size)
        self.path = subprocess.run(["losetup", "--find", "--show", self.image], check=True,
                                   capture_output=True, text=True).stdout.strip()

    def detach(self):
        subprocess.run(["losetup", "-d", self.path], check=False)


def latency_families(text):
    """Series and bytes of the exposition's latency families: what the
    histograms of the soak and the job cost a scrape, and grow with."""
    lines = [l for l in text.splitlines() if l and not l.startswith("#") and "latency" in l.split("{")[0]]
    return len(lines), sum(len(l) + 1 for l in lines)


def files_bytes(state):
    sizes = {}
    for path in sorted(glob.glob(os.path.join(state, "*.db*"))):
        sizes[os.path.basename(path)] = os.path.getsize(path)
    return sizes


def soak_rounds(state, name):
    """(index, seconds) of every finished round of the soak's newest run."""
    for db in glob.glob(os.path.join(state, "*.db")):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
                rows = c.execute(
                    "SELECT r.idx, r.data FROM pts_rounds r WHERE r.run_id = "
                    "(SELECT max(id) FROM pts_runs WHERE name = ?) ORDER BY r.idx", (name,)).fetchall()
        except sqlite3.Error:
            continue
        return [(idx, json.loads(data).get("seconds")) for idx, data in rows]
    return []


def config_text(args, soak_loop, job_loop, allow_dir, rounds):
    import nvmond_harness as h
    sims = [h.sim(f"fleet{i}", f"SIMLS{i:04d}", ("datacenter", "consumer", "consumer-heatsink")[i % 3],
                  write_rate="20MB")
            for i in range(args.fleet)]
    return h.config(
        h.table("[safety]", allow_dirs=[allow_dir]),
        *sims,
        h.table("[[soak]]", name="long-wsat", test="wsat", target=soak_loop,
                params={"rounds": rounds, "round": args.round, "threads": args.threads,
                        "queue_depth": args.queue_depth}),
        h.table("[[job]]", name="long-job", target=job_loop, pattern="random", bs="4KiB", read_pct=30,
                queue_depth=4, rate_iops=args.job_iops, runtime=f"{int(args.duration_s) + 3600}s"),
        poll_interval=args.poll)


def take_sample(proc, d, state, args, t0, cpu0):
    now = time.monotonic()
    text = d.scrape()
    series, lat_bytes = latency_families(text)
    times = curl_times(d.url, args.scrapes)
    rounds = soak_rounds(state, "long-wsat")
    log_bytes = os.path.getsize(d.log_path)
    return {
        "t_s": round(now - t0, 1),
        "load1": os.getloadavg()[0],
        "rss_bytes": proc.rss_bytes(),
        "fds": proc.fds(),
        "threads": proc.threads(),
        "cpu_s": round(proc.cpu_seconds() - cpu0, 2),
        "files_bytes": files_bytes(state),
        "log_bytes": log_bytes,
        "latency_series": series,
        "latency_exposition_bytes": lat_bytes,
        "exposition_bytes": len(text),
        "scrape_ms": {enc: {"p50": percentile(t, 0.5) * 1e3, "p99": percentile(t, 0.99) * 1e3,
                            "max": t[-1] * 1e3}
                      for enc, t in times.items()},
        "scrape_all_ms": {enc: [round(x * 1e3, 3) for x in t] for enc, t in times.items()},
        "rounds_finished": len(rounds),
    }


def summarize(samples, rounds, args, started, ended):
    warm = max(1, int(len(samples) * args.warmup))
    steady = samples[warm:] if len(samples) - warm >= 2 else samples
    fit = {k: slope_per_hour([(s["t_s"], s[k]) for s in steady]) for k in ("rss_bytes", "fds", "threads")}
    db_fit = {}
    for name in samples[-1]["files_bytes"]:
        db_fit[name] = slope_per_hour([(s["t_s"], s["files_bytes"].get(name, 0)) for s in steady])
    all_times = {enc: sorted(x for s in samples for x in s["scrape_all_ms"][enc]) for enc in ("identity", "gzip")}
    round_s = seconds_of(args.round)
    measured = [(i, s) for i, s in rounds if s is not None]
    deviations = [abs(s - round_s) / round_s for _, s in measured]
    return {
        "started": started, "ended": ended,
        "duration_s": samples[-1]["t_s"] if samples else 0,
        "config": {"round_s": round_s, "fleet": args.fleet, "poll": args.poll, "every_s": args.every_s,
                   "scrapes_per_sample": args.scrapes, "threads": args.threads, "queue_depth": args.queue_depth,
                   "job_iops": args.job_iops, "warmup_samples": warm,
                   "nice": os.nice(0), "cpus": os.cpu_count()},
        "rss_slope_bytes_per_h": fit["rss_bytes"],
        "fd_slope_per_h": fit["fds"],
        "thread_slope_per_h": fit["threads"],
        "db_slope_bytes_per_h": db_fit,
        "log_bytes_per_h": slope_per_hour([(s["t_s"], s["log_bytes"]) for s in steady]),
        "scrape_p99_ms": {enc: percentile(t, 0.99) for enc, t in all_times.items()},
        "scrape_p50_ms": {enc: percentile(t, 0.5) for enc, t in all_times.items()},
        "scrapes": {enc: len(t) for enc, t in all_times.items()},
        "rounds": {"finished": len(rounds), "configured_s": round_s,
                   "max_deviation": max(deviations, default=float("nan")),
                   "within_1pct": sum(1 for d in deviations if d <= 0.01),
                   "seconds": [s for _, s in measured]},
        "load1": {"min": min(s["load1"] for s in samples), "max": max(s["load1"] for s in samples)},
        "samples": samples,
    }


def svg(summary):
    """RSS (MiB) and scrape p99 (ms, both encodings) against hours, two panels."""
    samples = summary["samples"]
    w, ph, pad = 720, 180, 48
    hours = [s["t_s"] / 3600 for s in samples]
    xmax = max(hours[-1], 1e-9)

    def panel(top, title, series, unit):
        ymax = max((max(v) for _, v, _ in series if v), default=1) * 1.1 or 1
        out = [f'<text x="{pad}" y="{top - 6}" font-size="13">{title}</text>',
               f'<rect x="{pad}" y="{top}" width="{w - 2 * pad}" height="{ph}" fill="none" stroke="#999"/>',
               f'<text x="4" y="{top + 10}" font-size="10">{ymax:.3g} {unit}</text>',
               f'<text x="4" y="{top + ph}" font-size="10">0</text>']
        for name, values, colour in series:
            pts = " ".join(f"{pad + (w - 2 * pad) * x / xmax:.1f},{top + ph - ph * y / ymax:.1f}"
                           for x, y in zip(hours, values))
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{pts}">'
                       f'<title>{name}</title></polyline>')
        return out

    body = panel(24, "nvmond RSS (MiB)", [("rss", [s["rss_bytes"] / 2**20 for s in samples], "#1f77b4")], "MiB")
    body += panel(24 + ph + 40, "scrape p99 per sample (ms): identity blue, gzip orange",
                  [("identity", [s["scrape_ms"]["identity"]["p99"] for s in samples], "#1f77b4"),
                   ("gzip", [s["scrape_ms"]["gzip"]["p99"] for s in samples], "#ff7f0e")], "ms")
    height = 24 + 2 * ph + 40 + 30
    body.append(f'<text x="{w / 2 - 40}" y="{height - 8}" font-size="12">hours ({xmax:.2f} h in all)</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" '
            f'font-family="sans-serif">\n' + "\n".join(body) + "\n</svg>\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--duration", default="2h")
    ap.add_argument("--every", default="60s")
    ap.add_argument("--round", default="60s")
    ap.add_argument("--fleet", type=int, default=32)
    ap.add_argument("--poll", default="1s")
    ap.add_argument("--scrapes", type=int, default=20, help="per encoding per sample")
    ap.add_argument("--threads", type=int, default=1, help="the WSAT's threads (PTS: 4)")
    ap.add_argument("--queue-depth", type=int, default=4, help="the WSAT's queue depth per thread (PTS: 32)")
    ap.add_argument("--job-iops", type=int, default=500)
    ap.add_argument("--disk", default="512MiB", help="each loop device's size (in /dev/shm)")
    ap.add_argument("--warmup", type=float, default=0.1, help="share of the samples left out of the slopes")
    ap.add_argument("--out", help="OUT.json (default bench/results/long-soak-YYYYMMDD.json)")
    args = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("losetup"):
        raise SystemExit("long_soak.py needs root and losetup (its targets are loop devices)")
    args.duration_s, args.every_s = seconds_of(args.duration), seconds_of(args.every)
    disk = int(args.disk[:-3]) << {"KiB": 10, "MiB": 20, "GiB": 30}[args.disk[-3:]]
    os.environ.setdefault("NVMOND", os.path.join(args.build_dir, "nvmond"))
    import nvmond_harness as h
    h.NVMOND = os.environ["NVMOND"]
    out = args.out or os.path.join(here, "results",
                                   f"long-soak-{datetime.date.today().strftime('%Y%m%d')}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    shm = tempfile.mkdtemp(prefix="nvmond-long-soak-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    loops = []
    d = None
    samples = []
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        loops = [LoopDevice(shm, "soak.img", disk), LoopDevice(shm, "job.img", disk)]
        rounds = int(args.duration_s // seconds_of(args.round)) + 2  # still running when the bench ends
        d = h.Daemon(config_text(args, loops[0].path, loops[1].path, shm, rounds))
        d.start()
        state = os.path.join(d.dir, "state")
        proc = Process(d.proc.pid)
        cpu0, t0 = proc.cpu_seconds(), time.monotonic()
        print(f"nvmond pid {d.proc.pid}, state {state}, soak on {loops[0].path}, job on {loops[1].path}; "
              f"{args.duration} sampled every {args.every}", flush=True)
        next_at = t0
        while True:
            if d.exited():
                raise SystemExit(f"nvmond exited with {d.proc.returncode}:\n{d.log_text()[-4000:]}")
            s = take_sample(proc, d, state, args, t0, cpu0)
            samples.append(s)
            print(f"{s['t_s']:8.0f} s  load {s['load1']:4.1f}  RSS {s['rss_bytes'] / 2**20:6.1f} MiB  "
                  f"fds {s['fds']:4d}  threads {s['threads']:4d}  rounds {s['rounds_finished']:4d}  "
                  f"p99 {s['scrape_ms']['identity']['p99']:6.1f} / gz {s['scrape_ms']['gzip']['p99']:6.1f} ms",
                  flush=True)
            if s["t_s"] >= args.duration_s:
                break
            next_at += args.every_s
            time.sleep(max(0, next_at - time.monotonic()))  # the sampling period, not synchronisation
        rounds_done = soak_rounds(state, "long-wsat")
    finally:
        if d is not None and d.proc is not None and not d.exited():
            d.stop()
        for loop in loops:
            loop.detach()
        shutil.rmtree(shm, ignore_errors=True)
    ended = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    summary = summarize(samples, rounds_done, args, started, ended)
    with open(out, "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.splitext(out)[0] + ".svg", "w") as f:
        f.write(svg(summary))
    r = summary["rounds"]
    print(f"\n{summary['duration_s'] / 3600:.2f} h, load {summary['load1']['min']:.1f}-{summary['load1']['max']:.1f}; "
          f"written {out}")
    for key, unit, scale in (("rss_slope_bytes_per_h", "MiB", 2**20), ("fd_slope_per_h", "fds", 1),
                             ("thread_slope_per_h", "threads", 1)):
        v = summary[key] / scale
        print(f"{key}: {v:+.3f} {unit}/h  -> {10 * v:+.2f} {unit} at 10 h, {100 * v:+.1f} {unit} at 100 h")
    print(f"scrape p99 over {summary['scrapes']['identity']} scrapes each: identity "
          f"{summary['scrape_p99_ms']['identity']:.1f} ms, gzip {summary['scrape_p99_ms']['gzip']:.1f} ms")
    print(f"rounds: {r['finished']} finished, {r['within_1pct']} within 1 % of {r['configured_s']:g} s, "
          f"worst {100 * r['max_deviation']:.2f} %")


if __name__ == "__main__":
    main()
