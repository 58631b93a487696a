"""Starts the built nvmond on a temporary config and scrapes it over HTTP.

Waiting is always for an observable event (a log line, an HTTP answer, a
metric value) with a deadline; never a bare sleep.
"""
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

NVMOND = os.environ.get("NVMOND", "build/nvmond")
NVMONCTL = os.environ.get("NVMONCTL", "build/nvmonctl")
SOURCE_DIR = os.environ.get("NVMOND_SOURCE_DIR", os.getcwd())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)  # polling interval of an event wait, not synchronisation
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """Returns {(name, frozenset(labels.items())): float}."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            raise AssertionError(f"unparseable exposition line: {line!r}")
        labels = frozenset(_LABEL.findall(m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def value(metrics, name, **labels):
    want = set(labels.items())
    found = [v for (n, l), v in metrics.items() if n == name and want <= set(l)]
    if len(found) != 1:
        raise AssertionError(f"{name}{labels}: expected one series, found {len(found)}")
    return found[0]


def has_series(metrics, name, **labels):
    want = set(labels.items())
    return any(n == name and want <= set(l) for (n, l) in metrics)


class Daemon:
    def __init__(self, config_text, workdir=None):
        self.dir = workdir or tempfile.mkdtemp(prefix="nvmond-it-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        self.config = os.path.join(self.dir, "nvmond.toml")
        self.log_path = os.path.join(self.dir, "nvmond.log")
        self.write_config(config_text)
        self.proc = None

    def write_config(self, text):
        text = text.replace("@PORT@", str(self.port)).replace("@STATE@", os.path.join(self.dir, "state"))
        with open(self.config, "w") as f:
            f.write(text)

    def start(self, env=None):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([NVMOND, "--config", self.config], stdout=self.log,
                                     stderr=subprocess.STDOUT, env=dict(os.environ, **(env or {})))
        wait_for(lambda: self.try_scrape() is not None or self.exited(), 20, "nvmond to serve")
        if self.exited():
            raise AssertionError(f"nvmond exited with {self.proc.returncode}:\n{self.log_text()}")
        return self

    def exited(self):
        return self.proc.poll() is not None

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def try_scrape(self, timeout=5):
        try:
            with urllib.request.urlopen(self.url, timeout=timeout) as r:
                return r.read().decode()
        except OSError:
            return None

    def scrape(self):
        text = self.try_scrape()
        if text is None:
            raise AssertionError(f"scrape of {self.url} failed")
        return text

    def metrics(self):
        return parse_metrics(self.scrape())

    def wait_metric(self, predicate, timeout, what):
        return wait_for(lambda: (lambda m: m if predicate(m) else None)(self.metrics()), timeout, what)

    def wait_log(self, pattern, timeout, start=0):
        rx = re.compile(pattern)
        return wait_for(lambda: rx.search(self.log_text(), start), timeout, f"log line /{pattern}/")

    def signal(self, sig):
        self.proc.send_signal(sig)

    def kill9(self):
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def stop(self, timeout=10):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()
        return self.proc.returncode if self.proc else None
