"""Headless Chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: commands on fd 3, replies on fd 4, each message
JSON ended by a NUL byte). No driver binary, no port: loopback is not even
needed. Collects what a page reports (console messages, exceptions, log
entries, network requests) and takes element screenshots.
"""
import base64
import json
import os
import queue
import shutil
import subprocess
import threading

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, profile_dir, width=1200, height=900):
        if not CHROMIUM:
            raise AssertionError("chromium is not installed (scripts/setup installs the Debian package)")
        cmd_r, cmd_w = os.pipe()
        res_r, res_w = os.pipe()

        def child():
            # The protocol fds must be exactly 3 and 4; go through high numbers
            # so neither dup2 clobbers the other's source.
            a, b = os.dup(cmd_r), os.dup(res_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.stderr_path = os.path.join(profile_dir, "chromium.stderr")
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
             "--force-device-scale-factor=1", f"--user-data-dir={profile_dir}", "about:blank"],
            preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL, stdout=self._stderr,
            stderr=self._stderr)
        os.close(cmd_r)
        os.close(res_w)
        self._out = os.fdopen(cmd_w, "wb")
        self._in = os.fdopen(res_r, "rb")
        self._next_id = 0
        self._replies = {}
        self._cond = threading.Condition()
        self.events = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    def _read(self):
        buf = b""
        while True:
            chunk = self._in.read1(65536)
            if not chunk:
                with self._cond:
                    self._replies[None] = "closed"
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                else:
                    self.events.put(msg)

    def call(self, method, params=None, session=False, timeout=60):
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        self._out.write(json.dumps(msg).encode() + b"\0")
        self._out.flush()
        with self._cond:
            if not self._cond.wait_for(lambda: self._next_id in self._replies or None in self._replies,
                                       timeout=timeout):
                raise AssertionError(f"chromium did not answer {method} within {timeout}s")
            if self._next_id not in self._replies:
                raise AssertionError(f"chromium exited during {method}; see {self.stderr_path}")
            reply = self._replies.pop(self._next_id)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply["result"]

    def load(self, url, timeout=60):
        """Navigates and waits for the load event; returns every event seen until then."""
        self.call("Page.navigate", {"url": url}, session=True)
        seen = []
        while True:
            ev = self.events.get(timeout=timeout)
            seen.append(ev)
            if ev.get("method") == "Page.loadEventFired":
                return seen

    def drain(self):
        out = []
        while not self.events.empty():
            out.append(self.events.get_nowait())
        return out

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in r:
            raise AssertionError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path, clip=None):
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = dict(clip, scale=1)
        data = self.call("Page.captureScreenshot", params, session=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def print_pdf(self):
        return base64.b64decode(self.call("Page.printToPDF", {"printBackground": True}, session=True)["data"])

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except AssertionError:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._out.close()
        self._stderr.close()


def problems(events, page_url):
    """Console errors/warnings, uncaught exceptions, error log entries and any
    request other than the page itself: what a self-contained page must not have."""
    found = []
    for ev in events:
        m, p = ev.get("method"), ev.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            found.append(f"console {p['type']}: {[a.get('value', a.get('description')) for a in p.get('args', [])]}")
        elif m == "Runtime.exceptionThrown":
            found.append(f"exception: {p['exceptionDetails'].get('text')}")
        elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            found.append(f"log {p['entry']['level']}: {p['entry']['text']}")
        elif m == "Network.requestWillBeSent" and p["request"]["url"] != page_url:
            found.append(f"request: {p['request']['url']}")
    return found
