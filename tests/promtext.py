"""The one parser of the Prometheus text exposition format (samples only) for
the Python tests, the QEMU lab and the benchmarks, and the lookups on it.

Integration tests and bench put tests/ on sys.path through nvmond_harness;
the lab's entry points (lab.py, selftest.py) put it there themselves. It runs
on the host only: nothing of it is shipped into the lab guest.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

_NAME_RE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)")
_LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


class ParseError(ValueError):
    pass


def _value(text: str) -> float:
    special = {"+Inf": math.inf, "-Inf": -math.inf, "NaN": math.nan}
    return special[text] if text in special else float(text)


def parse(text: str) -> list[Sample]:
    samples = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _NAME_RE.match(line)
        if not m:
            raise ParseError(f"line {n}: no metric name: {line!r}")
        name, pos = m.group(1), m.end()
        labels: dict[str, str] = {}
        if pos < len(line) and line[pos] == "{":
            end = pos + 1
            while True:
                if end < len(line) and line[end] == "}":
                    end += 1
                    break
                lm = _LABEL_RE.match(line, end)
                if not lm:
                    raise ParseError(f"line {n}: bad labels: {line!r}")
                labels[lm.group(1)] = re.sub(r"\\[\\\"n]", lambda e: _UNESCAPE[e.group(0)],
                                             lm.group(2))
                end = lm.end()
            pos = end
        fields = line[pos:].split()
        if not fields:
            raise ParseError(f"line {n}: no value: {line!r}")
        try:
            samples.append(Sample(name, labels, _value(fields[0])))
        except ValueError:
            raise ParseError(f"line {n}: bad value: {line!r}") from None
    return samples


def find(samples: list[Sample], name: str, **labels: str) -> list[Sample]:
    """The samples of `name` that carry at least these labels."""
    return [s for s in samples if s.name == name and labels.items() <= s.labels.items()]


def has_series(samples: list[Sample], name: str, **labels: str) -> bool:
    return bool(find(samples, name, **labels))


def get(samples: list[Sample], name: str, **labels: str) -> float | None:
    """The single matching sample's value; None if absent; error if ambiguous."""
    found = find(samples, name, **labels)
    if len(found) > 1:
        raise ParseError(f"{name}{labels}: {len(found)} samples match")
    return found[0].value if found else None


def value(samples: list[Sample], name: str, **labels: str) -> float:
    """The value of the one matching sample; a test failure if none or several match."""
    found = find(samples, name, **labels)
    if len(found) != 1:
        raise AssertionError(f"{name}{labels}: expected one series, found {len(found)}")
    return found[0].value


def by_series(samples: list[Sample]) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """{(name, sorted label pairs): value}: two scrapes compared series by series."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for s in samples}
