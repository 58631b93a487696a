#!/usr/bin/env python3
"""Scrape latency of nvmond's /metrics at 64 simulated drives (the target:
p99 <= 10 ms on the project's 2-core machine). A benchmark, not a test: it prints
numbers and the machine's load, and asserts nothing.

Starts the built nvmond on loopback with 64 simulated drives polled every
second, waits until every drive is published, then scrapes N times on one
keep-alive connection as Prometheus does, once asking for gzip (Prometheus's
default) and once for identity, interleaved, timing each request from send
to the last byte read.

  bench/scrape_latency.py [--build-dir build] [--drives 64] [--scrapes 1000]
"""
import argparse
import gzip
import http.client
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))

from store_cost import cpu_seconds  # noqa: E402  (bench/ is not a package)


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def curl_times(url, count, encodings=("identity", "gzip")):
    """Seconds per scrape as curl measures them (an independent client, as a
    person or a scraper would use): one curl process, `count` transfers per
    encoding interleaved on one keep-alive connection, each timed by curl
    from its request to the last byte. Returns {encoding: sorted seconds}."""
    cmd = ["curl"]
    for i in range(count):
        for enc in encodings:
            if len(cmd) > 1:
                cmd.append("--next")
            if enc == "gzip":
                cmd.append("--compressed")
            cmd += ["-s", "-o", "/dev/null", "-w", f"{enc} %{{http_code}} %{{time_total}}\n", url]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=30 + count).stdout
    times = {enc: [] for enc in encodings}
    for line in out.split("\n"):
        if not line:
            continue
        enc, code, seconds = line.split()
        if code != "200":
            raise SystemExit(f"a curl scrape ({enc}) answered {code}")
        times[enc].append(float(seconds))
    return {enc: sorted(t) for enc, t in times.items()}


def config(h, drives):
    profiles = ["datacenter", "consumer", "consumer-heatsink", "generic"]
    # Every drive has the OCP logs (C0, the C3 latency monitor, C1); every
    # eighth reports a panic, so the panic's info series is there too.
    return h.config(*(h.sim(f"d{i}", f"BENCH-{i:03d}", profiles[i % 4], write_rate=f"{50 + i}MB", has_ocp=True,
                            ocp_panic=i % 8 == 0)
                      for i in range(drives)), poll_interval="1s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--drives", type=int, default=64)
    ap.add_argument("--scrapes", type=int, default=1000)
    args = ap.parse_args()
    os.environ.setdefault("NVMOND", os.path.join(args.build_dir, "nvmond"))
    import nvmond_harness as h
    h.NVMOND = os.environ["NVMOND"]

    d = h.Daemon(config(h, args.drives)).start()
    try:
        h.wait_for(lambda: sum(s.value == 1 and s.labels.get("serial", "").startswith("BENCH-")
                               for s in h.find(d.metrics(), "nvme_up")) == args.drives,
                   60, f"{args.drives} drives up")
        load_before = os.getloadavg()
        # The daemon's CPU without scrapes (64 drives polled every second) ...
        idle_cpu0, idle_t0 = cpu_seconds(d.proc.pid), time.monotonic()
        time.sleep(5)  # a measurement window, not synchronisation
        idle_rate = (cpu_seconds(d.proc.pid) - idle_cpu0) / (time.monotonic() - idle_t0)
        # ... and with them: the difference is what the scrapes cost.
        conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
        times = {"gzip": [], "identity": []}
        sizes, cpu = {}, {}
        for enc in ("gzip", "identity"):
            cpu0, t0_all = cpu_seconds(d.proc.pid), time.monotonic()
            for i in range(args.scrapes):
                t0 = time.perf_counter()
                conn.request("GET", "/metrics", headers={"Accept-Encoding": enc})
                r = conn.getresponse()
                body = r.read()
                times[enc].append(time.perf_counter() - t0)
                if r.status != 200:
                    raise SystemExit(f"scrape {i} answered {r.status}")
                sizes[enc] = len(body)
                if enc == "gzip" and i == 0:
                    text = gzip.decompress(body).decode()
                    series = len(h.parse(text))
            cpu[enc] = cpu_seconds(d.proc.pid) - cpu0 - idle_rate * (time.monotonic() - t0_all)
        conn.close()
        load_after = os.getloadavg()
        m = d.metrics()
        srv_sum = sum(s.value for s in h.find(m, "nvmond_http_request_duration_seconds_sum"))
        srv_count = sum(s.value for s in h.find(m, "nvmond_http_request_duration_seconds_count"))
    finally:
        d.stop()

    print(f"nvmond scrape latency: {args.drives} simulated drives, {series} series "
          f"({series / args.drives:.0f} per drive), {args.scrapes} scrapes per encoding, one keep-alive connection")
    for enc in ("gzip", "identity"):
        t = sorted(times[enc])
        print(f"  {enc:8s} {sizes[enc] / 1024:7.1f} KiB  p50 {percentile(t, 0.5) * 1e3:6.2f} ms  "
              f"p99 {percentile(t, 0.99) * 1e3:6.2f} ms  max {t[-1] * 1e3:6.2f} ms  "
              f"mean {statistics.mean(t) * 1e3:6.2f} ms  nvmond CPU {cpu[enc] / args.scrapes * 1e3:5.2f} ms/scrape")
    print(f"  server side (nvmond_http_request_duration_seconds), all requests: mean "
          f"{srv_sum / max(srv_count, 1) * 1e3:.2f} ms over {srv_count:.0f}")
    print(f"  (nvmond CPU per scrape: the daemon's CPU time during the scrapes minus its polling, "
          f"{idle_rate * 100:.1f} % of a CPU, measured for 5 s before)")
    print(f"  load average before {load_before[0]:.2f}, after {load_after[0]:.2f} on {os.cpu_count()} CPUs"
          " (numbers from a busy machine are upper bounds)")


if __name__ == "__main__":
    main()
