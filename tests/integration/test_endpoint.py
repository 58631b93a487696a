"""Tier 2: the metrics endpoint under clients that are idle, slow, greedy or
wrong: an endpoint that cannot be starved, and gzip.

Proves: with 50 idle and 50 slow (one header byte per second) connections
held open, 100 scrapes each answer within 100 ms; idle and slow connections
are closed by the 10 s header deadline; beyond the connection cap the oldest
waiting connections are dropped, not new scrapes; an oversized header gets
431 and a closed connection; gzip is served when asked for and decodes to the
same exposition; HEAD, 404 and 405. Loopback only.
"""
import gzip
import http.client
import os
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SLACK, Daemon, by_series, config, has_series, parse, sim, value, wait_for  # noqa: E402

# A long poll interval: the published snapshot stays put between two scrapes.
CONFIG = config(sim("a", "EP-A", "datacenter"), sim("b", "EP-B", "consumer"), poll_interval="1h")

SCRAPE_HEAD = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slowloris\r\n\r\n"
HEADER_TIMEOUT = 10.0  # http/server_context.hpp, Limits::header_timeout
MAX_CONNECTIONS = 128  # Limits::max_connections


def recv_all(sock, timeout):
    """Everything the server sends until it closes the connection."""
    sock.settimeout(timeout)
    chunks = []
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def closed_by_peer(sock):
    """True if the server has closed `sock` (without blocking)."""
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True
    finally:
        sock.setblocking(True)


class EndpointTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = Daemon(CONFIG).start()
        cls.d.wait_metric(lambda m: has_series(m, "nvme_up", serial="EP-A")
                          and has_series(m, "nvme_up", serial="EP-B"), 20, "both drives published")

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.d.port), timeout=5)

    def get(self, path="/metrics", method="GET", headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=5)
        try:
            conn.request(method, path, headers=headers or {})
            r = conn.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            conn.close()

    def test_scrapes_answer_within_100ms_beside_50_idle_and_50_slow_connections(self):
        idle = [self.connect() for _ in range(50)]
        slow = [self.connect() for _ in range(50)]
        opened = time.monotonic()
        stop = threading.Event()

        def dribble():  # one header byte per second on every slow connection
            i = 0
            while not stop.is_set() and i < len(SCRAPE_HEAD) - 2:  # never completes the head
                for s in slow:
                    try:
                        s.send(SCRAPE_HEAD[i:i + 1])
                    except OSError:
                        pass
                i += 1
                stop.wait(1.0)
        t = threading.Thread(target=dribble)
        t.start()
        try:
            latencies = []
            for _ in range(100):
                start = time.monotonic()
                status, _, body = self.get()
                latencies.append(time.monotonic() - start)
                self.assertEqual(status, 200)
                self.assertIn(b'nvme_up{serial="EP-A"} 1', body)
            latencies.sort()
            print(f"100 scrapes beside 50 idle + 50 slow connections: p50 {latencies[50]*1e3:.1f} ms, "
                  f"max {latencies[-1]*1e3:.1f} ms")
            self.assertLess(latencies[-1], 0.100 * SLACK, f"slowest scrape {latencies[-1]*1e3:.1f} ms")
            # Nothing was evicted: 100 held + 1 scrape is under the cap.
            self.assertEqual(sum(closed_by_peer(s) for s in idle + slow), 0)

            # The header deadline closes both kinds, counted from accept.
            def all_closed():
                return all(closed_by_peer(s) for s in idle + slow)
            wait_for(all_closed, HEADER_TIMEOUT + 10, "idle and slow connections to be closed")
            elapsed = time.monotonic() - opened
            self.assertGreater(elapsed, HEADER_TIMEOUT - 0.5)
            m = self.d.metrics()
            self.assertGreaterEqual(value(m, "nvmond_http_connections_dropped_total", reason="timeout"), 100)
        finally:
            stop.set()
            t.join()
            for s in idle + slow:
                s.close()

    def test_beyond_the_cap_the_oldest_waiting_connections_go(self):
        before = value(self.d.metrics(), "nvmond_http_connections_dropped_total", reason="evicted")
        held = []
        try:
            for _ in range(MAX_CONNECTIONS + 20):
                held.append(self.connect())
            status, _, _ = self.get()
            self.assertEqual(status, 200)
            # The first ones went, the newest stay open.
            wait_for(lambda: all(closed_by_peer(s) for s in held[:20]), 5, "the oldest connections to be dropped")
            self.assertFalse(any(closed_by_peer(s) for s in held[-50:]))
            after = value(self.d.metrics(), "nvmond_http_connections_dropped_total", reason="evicted")
            self.assertGreaterEqual(after - before, 21)  # 20 beyond the cap, and room for each scrape
        finally:
            for s in held:
                s.close()

    def test_an_oversized_header_gets_431_and_a_closed_connection(self):
        with self.connect() as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")
            reply = recv_all(s, 5)  # returns only once the server closed the connection
        self.assertTrue(reply.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), reply[:100])
        self.assertIn(b"Connection: close", reply)
        self.assertEqual(self.get()[0], 200)

    def test_gzip_when_asked_decodes_to_the_same_exposition(self):
        def without_self(text):  # the endpoint's own counters move with every request
            return by_series(s for s in parse(text) if not s.name.startswith("nvmond_http_"))
        status, headers, body = self.get(headers={"Accept-Encoding": "gzip"})
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("Content-Encoding"), "gzip")
        self.assertEqual(int(headers["Content-Length"]), len(body))
        zipped = gzip.decompress(body).decode()
        status, headers, plain = self.get(headers={"Accept-Encoding": "identity"})
        self.assertNotIn("Content-Encoding", headers)
        self.assertLess(len(body) * 4, len(plain))
        self.assertEqual(without_self(zipped), without_self(plain.decode()))
        self.assertGreater(len(without_self(zipped)), 50)

    def test_head_404_405_and_the_landing_page(self):
        status, headers, body = self.get(method="HEAD")
        self.assertEqual((status, body), (200, b""))
        self.assertGreater(int(headers["Content-Length"]), 1000)
        self.assertTrue(headers["Content-Type"].startswith("text/plain; version=0.0.4"))
        status, _, body = self.get("/")
        self.assertEqual(status, 200)
        self.assertIn(b'href="metrics"', body)
        self.assertEqual(self.get("/nope")[0], 404)
        status, headers, _ = self.get(method="POST")
        self.assertEqual((status, headers.get("Allow")), (405, "GET, HEAD"))

    def test_keep_alive_serves_several_requests_on_one_connection(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=5)
        try:
            for _ in range(3):
                conn.request("GET", "/metrics")
                r = conn.getresponse()
                self.assertEqual(r.status, 200)
                r.read()
            m = parse(self.get()[2].decode())
            self.assertGreaterEqual(value(m, "nvmond_http_requests_total", code="200"), 3)
        finally:
            conn.close()


if __name__ == "__main__":
    unittest.main()
