"""Tier 2: endpoint security from an exporter-toolkit web config.

Proves: nvmond serves /metrics over TLS with basic auth (bcrypt) from
[daemon] web_config; a wrong or missing password gets 401 with
WWW-Authenticate: Basic; plain HTTP to the TLS listener is answered 400 and
closed while TLS scrapes go on; each client_auth_type admits a scraper
without a certificate, with a CA-signed one and with a self-signed one as
Go's crypto/tls does; a real Prometheus scrapes it over TLS with
basic auth from a scrape configuration, and its target with a wrong password
is down with a 401; an invalid web config stops the start with file:line:col
and is refused on SIGHUP (the old one keeps serving); a non-loopback listener
without TLS or auth is warned about. Loopback only (the 0.0.0.0 listener is
only bound, never scraped from outside).
"""
import base64
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request
import warnings

with warnings.catch_warnings():  # libxcrypt's bcrypt, as htpasswd -B; removed in Python 3.13
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import NVMOND, Daemon, has_series, make_tls_files, parse, value, wait_for  # noqa: E402
from test_prometheus import PROMETHEUS, Prometheus  # noqa: E402

USER, PASSWORD = "prometheus", "correct horse"

CONFIG = """
[daemon]
listen = "127.0.0.1:@PORT@"
state_dir = "@STATE@"
web_config = "web.yml"

[collection]
poll_interval = "500ms"

[[sim]]
name = "t"
serial = "TLS-A"
profile = "datacenter"
"""


def bcrypt_hash(password):
    """A $2b$ hash (libxcrypt, as htpasswd -B makes). Cost 4, not 10: the
    tests are about the protocol, and a busy test machine makes cost 10 take
    longer than a scrape timeout."""
    return crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4))


def write_web_config(path, cert, key, users):
    with open(path, "w") as f:
        f.write(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n  min_version: TLS12\n")
        f.write("basic_auth_users:\n")
        for name, h in users.items():
            f.write(f"  {name}: {h}\n")


class TlsAuthTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nvmond-tls-")
        cls.ca, cls.cert, cls.key = make_tls_files(cls.tmp)
        cls.web = os.path.join(cls.tmp, "web.yml")
        write_web_config(cls.web, "server.crt", "server.key", {USER: bcrypt_hash(PASSWORD)})
        cls.d = Daemon(CONFIG, workdir=cls.tmp, ca_file=cls.ca, auth=(USER, PASSWORD)).start()
        cls.d.wait_metric(lambda m: has_series(m, "nvme_up", serial="TLS-A"), 20, "the drive published")

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def status_of(self, auth):
        try:
            with self.d.open(self.d.request(auth=auth)) as r:
                return r.status, dict(r.getheaders())
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers)

    def test_1_the_right_password_scrapes_over_tls(self):
        self.assertEqual(self.status_of((USER, PASSWORD))[0], 200)
        self.assertIn('nvme_up{serial="TLS-A"} 1', self.d.scrape())
        self.assertIn("serving metrics on https://", self.d.log_text())

    def test_2_a_wrong_or_missing_password_gets_401(self):
        for auth in [(USER, "wrong"), ("mallory", PASSWORD), ("", "")]:
            status, headers = self.status_of(auth)
            self.assertEqual(status, 401, auth)
            self.assertTrue(headers.get("WWW-Authenticate", "").startswith("Basic "), headers)
        try:
            self.d.open(urllib.request.Request(self.d.url))
            self.fail("a request without credentials was answered")
        except urllib.error.HTTPError as e:
            self.assertEqual(e.code, 401)

    def test_2b_a_password_with_a_nul_is_refused_not_verified_truncated(self):
        # crypt(3) stops at a NUL: "correct horse\0anything" must not pass as "correct horse".
        for password in [PASSWORD + "\0anything", PASSWORD + "\0"]:
            status, headers = self.status_of((USER, password))
            self.assertEqual(status, 401, repr(password))
            self.assertTrue(headers.get("WWW-Authenticate", "").startswith("Basic "), headers)
        self.assertEqual(self.status_of((USER, PASSWORD))[0], 200)

    def test_2c_an_address_that_keeps_failing_gets_429_without_a_check(self):
        # Its own source address, so the other tests' failures do not count.
        def get(password, source="127.0.0.77"):
            conn = http.client.HTTPSConnection("127.0.0.1", self.d.port, timeout=10, context=self.d.ssl_context,
                                               source_address=(source, 0))
            token = base64.b64encode(f"{USER}:{password}".encode()).decode()
            try:
                conn.request("GET", "/metrics", headers={"Authorization": f"Basic {token}"})
                r = conn.getresponse()
                r.read()
                return r.status, r.getheader("Retry-After")
            finally:
                conn.close()

        self.assertEqual(get(PASSWORD)[0], 200)  # remembered: served whatever the address does next
        statuses = [get(f"guess {i}")[0] for i in range(8)]
        self.assertEqual(statuses, [401] * 5 + [429] * 3)  # an allowance of 5 failures
        status, retry_after = get("guess 9")
        self.assertEqual(status, 429)
        self.assertTrue(1 <= int(retry_after) <= 10, retry_after)
        self.assertEqual(get("guess 0")[0], 401)  # a remembered failure costs no check
        self.assertEqual(get(PASSWORD)[0], 200)
        self.assertEqual(get(PASSWORD + "!", source="127.0.0.78")[0], 401)  # another address is not limited
        m = parse(self.d.scrape())
        self.assertGreaterEqual(value(m, "nvmond_http_auth_refused_total", reason="rate_limited"), 4)

    def test_3_plain_http_to_the_tls_listener_fails_cleanly(self):
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", self.d.port), timeout=5) as s:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                reply = b""
                while chunk := s.recv(4096):
                    reply += chunk
            self.assertTrue(reply.startswith(b"HTTP/1.0 400 Bad Request"), reply)
            self.assertIn(b"HTTP request to an HTTPS server", reply)
            self.assertNotIn(b"nvme_up", reply)
        # Garbage that is not even HTTP is closed too.
        with socket.create_connection(("127.0.0.1", self.d.port), timeout=5) as s:
            s.sendall(b"\x16\x03\x01\x00\x05hello")
            s.shutdown(socket.SHUT_WR)
            s.settimeout(5)
            self.assertEqual(s.recv(4096)[:1] in (b"", b"\x15"), True)  # closed, or a TLS alert
        self.assertIsNone(self.d.proc.poll())
        self.assertEqual(self.status_of((USER, PASSWORD))[0], 200)
        self.assertIn('nvmond_http_connections_dropped_total{reason="tls"}', self.d.scrape())

    def test_4_a_real_prometheus_scrapes_over_tls_with_basic_auth(self):
        if not os.path.exists(PROMETHEUS):
            self.skipTest("prometheus is not installed (Debian package prometheus)")
        pdir = tempfile.mkdtemp(prefix="nvmond-tls-prom-", dir=self.tmp)
        p = Prometheus(pdir, self.d.port)
        target = f"127.0.0.1:{self.d.port}"

        def job(name, password):
            return (f"  - job_name: {name}\n    scheme: https\n    tls_config:\n      ca_file: {self.ca}\n"
                    f"    basic_auth:\n      username: {USER}\n      password: \"{password}\"\n"
                    f"    static_configs:\n      - targets: [\"{target}\"]\n")
        with open(p.config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n")
            f.write(job("nvmond-tls", PASSWORD) + job("nvmond-wrong-password", "wrong"))
        try:
            p.start()

            def targets():
                data = p.api("targets")
                by_job = {t["labels"]["job"]: t for t in data["activeTargets"]} if data else {}
                good, bad = by_job.get("nvmond-tls", {}), by_job.get("nvmond-wrong-password", {})
                if good.get("health") == "up" and bad.get("health") == "down" and "401" in (bad.get("lastError") or ""):
                    return by_job
                return None
            try:
                by_job = wait_for(targets, 30, "the target up, and the one with a wrong password down with 401")
            except AssertionError as e:
                raise AssertionError(f"{e}\ntargets: {p.api('targets')}")
            self.assertIn("server returned HTTP status 401 Unauthorized", by_job["nvmond-wrong-password"]["lastError"])

            def drive_up():
                data = p.api("query", query='nvme_up{job="nvmond-tls"}')
                return data and [s["metric"]["serial"] for s in data["result"] if s["value"][1] == "1"]
            self.assertEqual(wait_for(drive_up, 20, "nvme_up through the TLS scrape"), ["TLS-A"])
        except AssertionError as e:
            raise AssertionError(f"{e}\n--- prometheus log ---\n{p.log_text()[-3000:]}")
        finally:
            p.stop()

    def test_5_a_broken_web_config_on_reload_keeps_the_running_one(self):
        with open(self.web) as f:
            good = f.read()
        try:
            with open(self.web, "w") as f:
                f.write(good.replace("min_version: TLS12", "min_version: TLS99"))
            mark = len(self.d.log_text())
            self.d.signal(signal.SIGHUP)
            self.d.wait_log(r"reload rejected.*web\.yml:4:16: min_version \"TLS99\"", 10, mark)
            self.assertEqual(self.status_of((USER, PASSWORD))[0], 200)
            self.assertEqual(self.status_of((USER, "wrong"))[0], 401)
        finally:
            with open(self.web, "w") as f:
                f.write(good)


def make_client_certs(directory):
    """A client certificate the test CA signed and a self-signed one no CA
    knows: (signed, foreign) as (cert, key) path pairs."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=scraper", "-keyout", "client.key",
        "-out", "client.csr")
    run("x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-out", "client.crt")
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=stranger",
        "-keyout", "foreign.key", "-out", "foreign.crt")
    return tuple((os.path.join(directory, n + ".crt"), os.path.join(directory, n + ".key"))
                 for n in ("client", "foreign"))


class ClientCertificateTest(unittest.TestCase):
    """Each exporter-toolkit client_auth_type against a real handshake: a
    scraper without a certificate, with one the client CA signed, and with a
    self-signed one. One daemon; the mode changes by SIGHUP."""

    # mode -> (no certificate, signed, foreign) scraped?
    EXPECTED = {
        "NoClientCert": (True, True, True),
        "RequestClientCert": (True, True, True),
        "RequireAnyClientCert": (False, True, True),
        "VerifyClientCertIfGiven": (True, True, False),
        "RequireAndVerifyClientCert": (False, True, False),
    }

    def test_each_mode_lets_in_whom_go_lets_in(self):
        tmp = tempfile.mkdtemp(prefix="nvmond-mtls-")
        try:
            ca, _, _ = make_tls_files(tmp)
            signed, foreign = make_client_certs(tmp)
            web = os.path.join(tmp, "web.yml")

            def configure(mode):
                with open(web, "w") as f:
                    f.write("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                            f"  client_auth_type: {mode}\n")
                    if "Verify" in mode:
                        f.write("  client_ca_file: ca.crt\n")
            configure("NoClientCert")
            d = Daemon(CONFIG, workdir=tmp, ca_file=ca).start()
            try:
                d.wait_metric(lambda m: has_series(m, "nvme_up", serial="TLS-A"), 20, "the drive published")

                def scraped(cert):
                    context = ssl.create_default_context(cafile=ca)
                    if cert:
                        context.load_cert_chain(*cert)
                    try:
                        with urllib.request.urlopen(d.url, timeout=5, context=context) as r:
                            return r.status == 200 and b"nvme_up" in r.read()
                    except (OSError, ssl.SSLError):  # refused in the handshake or by the alert after it
                        return False

                for mode, expected in self.EXPECTED.items():
                    mark = len(d.log_text())
                    configure(mode)
                    d.signal(signal.SIGHUP)
                    d.wait_log(r"reloaded ", 10, mark)
                    got = tuple(scraped(cert) for cert in (None, signed, foreign))
                    self.assertEqual(got, expected, f"{mode}: (none, signed, foreign)")
            finally:
                d.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class WebConfigStartTest(unittest.TestCase):
    def test_an_invalid_web_config_stops_the_start_at_its_line(self):
        tmp = tempfile.mkdtemp(prefix="nvmond-webcfg-")
        try:
            with open(os.path.join(tmp, "web.yml"), "w") as f:
                f.write("basic_auth_users:\n  alice: not-a-hash\n")
            d = Daemon(CONFIG, workdir=tmp)
            with self.assertRaises(AssertionError):
                d.start()
            d.stop()
            self.assertNotEqual(d.proc.returncode, 0)
            expected = f"{tmp}/web.yml:2:10: basic_auth_users.alice: expected a bcrypt hash"
            self.assertIn(expected, d.log_text())
            r = subprocess.run([NVMOND, "--check-config", d.config], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn(expected, r.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_a_non_loopback_listener_without_tls_or_auth_is_warned_about(self):
        d = Daemon(CONFIG.replace('web_config = "web.yml"\n', "").replace("127.0.0.1:@PORT@", "0.0.0.0:@PORT@"))
        try:
            d.start()
            d.wait_log(r"accepts connections from other hosts without TLS or authentication", 5)
        finally:
            d.stop()
            shutil.rmtree(d.dir, ignore_errors=True)

    def test_loopback_plain_http_is_not_warned_about(self):
        d = Daemon(CONFIG.replace('web_config = "web.yml"\n', ""))
        try:
            d.start()
            self.assertNotIn("accepts connections from other hosts", d.log_text())
        finally:
            d.stop()
            shutil.rmtree(d.dir, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
