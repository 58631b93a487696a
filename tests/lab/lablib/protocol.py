"""The guest's console protocol (see guest/init): markers, requests and blocks."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

MARKER_RE = re.compile(r"^LAB: (\S+)(.*)$")
BEGIN_RE = re.compile(r"^LAB-BEGIN (\S+)$")
END_RE = re.compile(r"^LAB-END (\S+) rc=(\d+)$")
KV_RE = re.compile(r"(\w[\w-]*)=(\S*)")


def key_values(text: str) -> dict[str, str]:
    return dict(KV_RE.findall(text))


@dataclass
class Transcript:
    """Everything the guest reported, in a JSON-friendly shape."""

    markers: list[dict] = field(default_factory=list)  # {event, args, text, t}
    # name -> {text, rc, t_begin, t_end}; t in seconds since the guest started
    blocks: dict[str, dict] = field(default_factory=dict)
    failures: list[dict] = field(default_factory=list)  # {phase, text} of "LAB: fail ..."
    done: bool = False
    aborted: str | None = None

    def marker(self, event: str) -> dict | None:
        return next((m for m in self.markers if m["event"] == event), None)


class ConsoleParser:
    """Feeds console lines; returns the markers so the caller can react to them."""

    def __init__(self, started: float):
        self.t = Transcript()
        self.started = started
        self._open: str | None = None
        self._phase = "boot"
        self._lines: list[str] = []
        self._open_t = 0.0

    def _now(self) -> float:
        return round(time.monotonic() - self.started, 3)

    def feed(self, line: str) -> dict | None:
        if self._open is not None:
            m = END_RE.match(line)
            if m and m.group(1) == self._open:
                self.t.blocks[self._open] = {"text": "\n".join(self._lines),
                                             "rc": int(m.group(2)),
                                             "t_begin": self._open_t, "t_end": self._now()}
                self._open = None
            else:
                self._lines.append(line)
            return None
        m = BEGIN_RE.match(line)
        if m:
            self._open, self._lines, self._open_t = m.group(1), [], self._now()
            return None
        m = MARKER_RE.match(line)
        if not m:
            return None
        event, rest = m.group(1), m.group(2).strip()
        marker = {"event": event, "text": rest, "args": key_values(rest),
                  "t": self._now()}
        self.t.markers.append(marker)
        if event == "phase":
            self._phase = rest
        elif event == "fail":
            self.t.failures.append({"phase": self._phase, "text": rest})
        elif event == "done":
            self.t.done = True
        elif event == "abort":
            self.t.aborted = rest
        return marker
