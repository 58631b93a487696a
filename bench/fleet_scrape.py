#!/usr/bin/env python3
"""Fleet-scale benchmark (not a test): N nvmond daemons on loopback, each with
M simulated drives, scraped by one real Prometheus through file-based service
discovery, using grafana/fleet/prometheus.yml (targets file, ports and
intervals replaced; the shipped rules, fleet rules included, are loaded).

Prints, from Prometheus itself:
- series per drive (series carrying `serial`, over nvme_up's count) and the
  daemon-wide series per daemon;
- scrape duration p50/p99/max over every raw `scrape_duration_seconds`
  sample of the nvmond job in the measured window;
- samples ingested per second: rate of prometheus_tsdb_head_samples_appended_total.

Usage (a built tree, loopback only):
  bench/fleet_scrape.py --nvmond build/nvmond                    # 50 daemons x 8 drives
  bench/fleet_scrape.py --nvmond build/nvmond --daemons 1 --drives 64
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "integration"))
from nvmond_harness import free_port, wait_for  # noqa: E402
FLEET_CONFIG = os.path.join(SOURCE_DIR, "grafana", "fleet", "prometheus.yml")
PROFILES = ["datacenter", "consumer", "consumer-heatsink", "generic"]


def daemon_config(port, state, index, drives):
    out = [f'[daemon]\nlisten = "127.0.0.1:{port}"\nstate_dir = "{state}"\nlog_level = "warning"\n',
           '[collection]\npoll_interval = "10s"\n']
    for d in range(drives):
        profile = PROFILES[d % len(PROFILES)]
        out.append(f'[[sim]]\nname = "d{d}"\nserial = "BENCH{index:03d}D{d:03d}"\nprofile = "{profile}"\n'
                   f'write_rate = "{50 + 10 * (d % 5)}MB"\n')
    return "\n".join(out)


def get_json(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


def query(prom, expr):
    url = f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    doc = get_json(url)
    if doc.get("status") != "success":
        raise RuntimeError(f"{expr}: {doc}")
    return doc["data"]["result"]


def scalar(prom, expr):
    r = query(prom, expr)
    return float(r[0]["value"][1]) if r else float("nan")


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvmond", default=os.path.join(SOURCE_DIR, "build", "nvmond"))
    ap.add_argument("--prometheus", default=shutil.which("prometheus") or "/usr/bin/prometheus")
    ap.add_argument("--daemons", type=int, default=50)
    ap.add_argument("--drives", type=int, default=8)
    ap.add_argument("--scrape-interval", type=int, default=5, help="seconds")
    ap.add_argument("--duration", type=int, default=180, help="measured seconds after every target is up")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="nvmond-fleet-bench-")
    procs = []
    try:
        targets = []
        for i in range(args.daemons):
            port = free_port()
            d = os.path.join(work, f"d{i:03d}")
            os.makedirs(d)
            cfg = os.path.join(d, "nvmond.toml")
            with open(cfg, "w") as f:
                f.write(daemon_config(port, os.path.join(d, "state"), i, args.drives))
            log = open(os.path.join(d, "nvmond.log"), "wb")
            procs.append(subprocess.Popen([args.nvmond, "--config", cfg], stdout=log, stderr=subprocess.STDOUT))
            targets.append({"targets": [f"127.0.0.1:{port}"],
                            "labels": {"datacenter": f"dc{i % 2}", "rack": f"r{i % 5}"}})

        # The shipped fleet config: its file_sd job, self-scrape and rules.
        with open(FLEET_CONFIG) as f:
            cfg = yaml.safe_load(f)
        prom_port = free_port()
        os.makedirs(os.path.join(work, "targets"))
        with open(os.path.join(work, "targets", "bench.json"), "w") as f:
            json.dump(targets, f)
        cfg["global"].update(scrape_interval=f"{args.scrape_interval}s",
                             evaluation_interval=f"{args.scrape_interval}s")
        cfg["rule_files"] = [os.path.normpath(os.path.join(os.path.dirname(FLEET_CONFIG), p)) for p in cfg["rule_files"]]
        for job in cfg["scrape_configs"]:
            if job["job_name"] == "nvmond":
                job["scrape_timeout"] = f"{args.scrape_interval}s"
                job["file_sd_configs"] = [{"files": [os.path.join(work, "targets", "*.json")], "refresh_interval": "30s"}]
            elif job["job_name"] == "prometheus":
                job["static_configs"] = [{"targets": [f"127.0.0.1:{prom_port}"]}]
        with open(os.path.join(work, "prometheus.yml"), "w") as f:
            yaml.safe_dump(cfg, f)
        prom_log = open(os.path.join(work, "prometheus.log"), "wb")
        procs.append(subprocess.Popen(
            [args.prometheus, f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/tsdb",
             f"--web.listen-address=127.0.0.1:{prom_port}", "--enable-feature=extra-scrape-metrics"], stdout=prom_log, stderr=subprocess.STDOUT))
        prom = f"http://127.0.0.1:{prom_port}"

        def all_up():
            try:
                return scalar(prom, 'count(up{job="nvmond"} == 1)') == args.daemons
            except OSError:
                return False
        t0 = time.monotonic()
        wait_for(all_up, 120, f"{args.daemons} nvmond targets up")
        print(f"all {args.daemons} targets up after {time.monotonic() - t0:.1f}s; measuring {args.duration}s",
              file=sys.stderr)
        # Let the first polls land (analytics series appear after the second poll).
        time.sleep(args.duration)  # the measurement window itself, not synchronisation
        window = f"{args.duration}s"

        drives = scalar(prom, 'count(nvme_up{job="nvmond"})')
        # Scraped series only: recording-rule outputs (names with a colon)
        # and Prometheus's own per-target series are not nvmond's.
        scraped_only = '__name__!~".*:.*",__name__!~"up|scrape_.*"'
        per_drive = scalar(prom, f'count({{job="nvmond",serial!="",{scraped_only}}})') / drives
        per_drive_max = scalar(prom, f'max(count by (serial) ({{job="nvmond",serial!="",{scraped_only}}}))')
        daemon_wide = scalar(prom, f'count({{job="nvmond",serial="",{scraped_only}}})') / args.daemons
        raw = query(prom, f'scrape_duration_seconds{{job="nvmond"}}[{window}]')
        durations = sorted(float(v) for s in raw for _, v in s["values"])
        samples_per_s = scalar(prom, f'rate(prometheus_tsdb_head_samples_appended_total[{window}])')
        scraped = scalar(prom, 'sum(scrape_samples_scraped{job="nvmond"})')
        bytes_per_scrape = scalar(prom, 'avg(scrape_body_size_bytes{job="nvmond"})')

        print(f"daemons={args.daemons} drives_per_daemon={args.drives} drives_seen={drives:.0f} "
              f"scrape_interval={args.scrape_interval}s window={window}")
        print(f"series_per_drive avg={per_drive:.1f} max={per_drive_max:.0f}; daemon-wide series per daemon={daemon_wide:.1f}")
        print(f"samples per scrape of all targets={scraped:.0f}; body bytes per scrape of one target={bytes_per_scrape:.0f}")
        print(f"scrape_duration_seconds n={len(durations)} p50={percentile(durations, 0.5) * 1e3:.2f} ms "
              f"p99={percentile(durations, 0.99) * 1e3:.2f} ms max={durations[-1] * 1e3 if durations else float('nan'):.2f} ms")
        print(f"samples ingested per second={samples_per_s:.0f} (all jobs, rules included)")
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if args.keep:
            print(f"work directory: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
