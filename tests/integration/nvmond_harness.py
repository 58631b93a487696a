"""Starts the built nvmond on a temporary config and scrapes it over HTTP.

Waiting is always for an observable event (a log line, an HTTP answer, a
metric value) with a deadline; never a bare sleep.
"""
import base64
import contextlib
import datetime
import json
import os
import re
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

# tests/: promtext, the exposition parser shared with the lab and bench.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from promtext import Sample, by_series, find, get, has_series, parse, value  # noqa: E402,F401  (re-exported)

NVMOND = os.environ.get("NVMOND", "build/nvmond")
NVMONCTL = os.environ.get("NVMONCTL", "build/nvmonctl")
SOURCE_DIR = os.environ.get("NVMOND_SOURCE_DIR", os.getcwd())
# The build under AddressSanitizer + UBSan: several times slower, so answer-time
# bounds widen by SLACK and a few timing-only checks are skipped.
SANITIZED = os.environ.get("NVMOND_SANITIZED") == "1"
SLACK = 2.0 if SANITIZED else 1.0


def nvmonctl(*args, timeout=30, prefix=()):
    """Runs nvmonctl (after `prefix`, e.g. setpriv) and returns the completed process."""
    return subprocess.run([*prefix, NVMONCTL, *args], capture_output=True, text=True, timeout=timeout)


def promtool_check_metrics(text):
    """`promtool check metrics` on an exposition: the completed process."""
    return subprocess.run(["promtool", "check", "metrics"], input=text, text=True, capture_output=True)


def store_rows(db, sql, *params):
    """The rows of a query on the daemon's SQLite store, read only as an
    operator's sqlite3 would. The connection is closed at once: one left open
    would keep the daemon's last checkpoint from folding the WAL back."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as c:
        return c.execute(sql, params).fetchall()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.02)  # polling interval of an event wait, not synchronisation
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def toml_value(v):
    """A Python value as TOML: str, bool, int, float, datetime, list, dict (an inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, datetime.datetime):
        return v.isoformat().replace("+00:00", "Z")
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    return json.dumps(v)  # a TOML basic string is a JSON string


def table(header, **keys):
    """One TOML table: table("[clock]", mode="accelerated", factor=60)."""
    return "\n".join([header, *(f"{k} = {toml_value(v)}" for k, v in keys.items())]) + "\n"


def sim(name, serial, profile, **keys):
    """A [[sim]] drive; keys in the order the test gives them."""
    return table("[[sim]]", name=name, serial=serial, profile=profile, **keys)


def config(*tables, **collection):
    """The [daemon] section every test shares (listen on @PORT@, state under
    @STATE@), [collection] with these keys if any, then the test's own tables (from
    table()/sim() or TOML text)."""
    daemon = table("[daemon]", listen="127.0.0.1:@PORT@", state_dir="@STATE@")
    return "\n".join([daemon, *([table("[collection]", **collection)] if collection else []), *tables])


def make_tls_files(directory):
    """A CA and a server certificate it signed for 127.0.0.1/localhost, made
    with the openssl command: (ca.crt, server.crt, server.key) paths."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=nvmond test CA",
        "-keyout", "ca.key", "-out", "ca.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
        "-out", "server.csr")
    with open(os.path.join(directory, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", "san.ext", "-out", "server.crt")
    return tuple(os.path.join(directory, n) for n in ("ca.crt", "server.crt", "server.key"))


def _die_with_parent():
    """In the child before exec: SIGKILL when the test process dies, however it
    dies (a ctest timeout kills it with no chance to clean up), so no daemon
    outlives its test and loads the machine for the tests after it."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Daemon:
    def __init__(self, config_text, workdir=None, ca_file=None, auth=None):
        """ca_file: scrape over https trusting this CA. auth: (user, password)."""
        self.dir = workdir or tempfile.mkdtemp(prefix="nvmond-it-")
        self.port = free_port()
        self.scheme = "https" if ca_file else "http"
        self.url = f"{self.scheme}://127.0.0.1:{self.port}/metrics"
        self.ssl_context = ssl.create_default_context(cafile=ca_file) if ca_file else None
        self.auth = auth
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
                                     stderr=subprocess.STDOUT, env=dict(os.environ, **(env or {})),
                                     preexec_fn=_die_with_parent)
        wait_for(lambda: self.try_scrape() is not None or self.exited(), 20, "nvmond to serve")
        if self.exited():
            raise AssertionError(f"nvmond exited with {self.proc.returncode}:\n{self.log_text()}")
        return self

    def exited(self):
        return self.proc.poll() is not None

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def request(self, url=None, auth=None, headers=None, method="GET"):
        """A urllib Request for the endpoint with this daemon's credentials (or `auth`)."""
        req = urllib.request.Request(url or self.url, headers=headers or {}, method=method)
        user_password = auth or self.auth
        if user_password:
            token = base64.b64encode(":".join(user_password).encode()).decode()
            req.add_header("Authorization", f"Basic {token}")
        return req

    def open(self, req, timeout=5):
        return urllib.request.urlopen(req, timeout=timeout, context=self.ssl_context)

    def try_scrape(self, timeout=5):
        try:
            with self.open(self.request(), timeout=timeout) as r:
                return r.read().decode()
        except OSError:
            return None

    def scrape(self):
        text = self.try_scrape()
        if text is None:
            raise AssertionError(f"scrape of {self.url} failed")
        return text

    def metrics(self):
        return parse(self.scrape())

    def wait_scrape(self, predicate, timeout, what):
        """The first exposition text that predicate(text) accepts."""
        return wait_for(lambda: (lambda t: t if t is not None and predicate(t) else None)(self.try_scrape()),
                        timeout, what)

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
