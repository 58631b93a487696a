"""Assemble the guest's initramfs: a cpio "newc" archive written in Python.

Writing the archive ourselves (instead of calling `cpio`) lets us add the
/dev/console node without root and keeps the archive byte-for-byte
reproducible from its inputs. The archive is left uncompressed: under TCG the
kernel's gzip decompression costs more time than reading a few more MiB.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

LOADER_RE = re.compile(r"^\s*(/\S+)\s+\(0x")
LIB_RE = re.compile(r"=>\s+(/\S+)\s+\(0x")


@dataclass
class Entry:
    mode: int
    data: bytes = b""
    rdev: tuple[int, int] = (0, 0)


@dataclass
class Initramfs:
    """In-memory tree keyed by absolute guest path; parents are implied."""

    entries: dict[str, Entry] = field(default_factory=dict)

    def mkdir(self, path: str) -> None:
        parts = [p for p in path.split("/") if p]
        for i in range(1, len(parts) + 1):
            p = "/" + "/".join(parts[:i])
            if p not in self.entries:
                self.entries[p] = Entry(stat.S_IFDIR | 0o755)

    def add_bytes(self, path: str, data: bytes, perm: int = 0o644) -> None:
        self.mkdir(os.path.dirname(path))
        self.entries[path] = Entry(stat.S_IFREG | perm, data)

    def add_file(self, path: str, host_path: str | Path, perm: int | None = None) -> None:
        host_path = Path(host_path)
        if perm is None:
            perm = stat.S_IMODE(host_path.stat().st_mode) | 0o444
        self.add_bytes(path, host_path.read_bytes(), perm)

    def add_symlink(self, path: str, target: str) -> None:
        self.mkdir(os.path.dirname(path))
        self.entries[path] = Entry(stat.S_IFLNK | 0o777, target.encode())

    def add_chardev(self, path: str, major: int, minor: int, perm: int = 0o600) -> None:
        self.mkdir(os.path.dirname(path))
        self.entries[path] = Entry(stat.S_IFCHR | perm, rdev=(major, minor))

    def write(self, out: Path) -> int:
        """Writes the archive; returns its size in bytes."""
        chunks: list[bytes] = []
        # Sorted paths put every directory before its contents.
        for ino, path in enumerate(sorted(self.entries), start=1):
            e = self.entries[path]
            chunks.append(_newc_record(path.lstrip("/"), e, ino))
        chunks.append(_newc_record("TRAILER!!!", Entry(0), 0))
        blob = b"".join(chunks)
        out.write_bytes(blob)
        return len(blob)


def _pad4(n: int) -> bytes:
    return b"\0" * ((4 - n % 4) % 4)


def _newc_record(name: str, e: Entry, ino: int) -> bytes:
    name_b = name.encode() + b"\0"
    fields = [
        ino, e.mode, 0, 0, 2 if stat.S_ISDIR(e.mode) else 1, 0, len(e.data),
        0, 0, e.rdev[0], e.rdev[1], len(name_b), 0,
    ]
    header = b"070701" + b"".join(b"%08X" % f for f in fields)
    return header + name_b + _pad4(len(header) + len(name_b)) + e.data + _pad4(len(e.data))


def shared_libraries(binary: str | Path) -> list[str]:
    """Absolute paths of the loader and every library `ldd` resolves."""
    out = subprocess.run(["ldd", str(binary)], check=True, capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        if "not found" in line:
            raise RuntimeError(f"{binary}: unresolved library: {line.strip()}")
        m = LIB_RE.search(line) or LOADER_RE.match(line)
        if m:
            libs.append(m.group(1))
    return libs


def add_binary(img: Initramfs, guest_path: str, host_path: str | Path, strip: bool = True) -> None:
    """Adds an ELF binary (debug info stripped to save guest RAM) and its libraries."""
    host_path = Path(host_path)
    if strip and shutil.which("strip"):
        with tempfile.TemporaryDirectory() as tmp:
            stripped = Path(tmp) / host_path.name
            subprocess.run(["strip", "--strip-debug", "-o", str(stripped), str(host_path)],
                           check=True)
            img.add_file(guest_path, stripped, 0o755)
    else:
        img.add_file(guest_path, host_path, 0o755)
    for lib in shared_libraries(host_path):
        if lib not in img.entries:
            img.add_file(lib, os.path.realpath(lib), 0o755)


def read_modules_dep(moddir: Path) -> dict[str, list[str]]:
    """modules.dep as {module name: [relative paths of deps]} keyed by file stem."""
    deps: dict[str, list[str]] = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        deps[path] = rest.split()
    return deps


def module_load_order(moddir: Path, names: list[str]) -> list[str]:
    """Relative .ko paths for `names` and their dependencies, dependencies first."""
    deps = read_modules_dep(moddir)

    def stem(p: str) -> str:
        base = os.path.basename(p)
        return re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", base).replace("-", "_")

    by_name = {stem(p): p for p in deps}
    order: list[str] = []

    def visit(rel: str) -> None:
        if rel in order:
            return
        # modules.dep lists the full transitive closure, deepest last.
        for d in reversed(deps.get(rel, [])):
            visit(d)
        order.append(rel)

    for n in names:
        key = n.replace("-", "_")
        if key not in by_name:
            raise RuntimeError(f"module {n} not in {moddir}/modules.dep")
        visit(by_name[key])
    return order


def module_bytes(path: Path) -> bytes:
    """Module contents, decompressed: busybox insmod takes plain ELF only."""
    if path.suffix == ".xz":
        import lzma
        return lzma.decompress(path.read_bytes())
    if path.suffix == ".gz":
        import gzip
        return gzip.decompress(path.read_bytes())
    if path.suffix == ".zst":
        return subprocess.run(["zstd", "-dc", str(path)], check=True, capture_output=True).stdout
    return path.read_bytes()


def add_busybox(img: Initramfs, busybox: str) -> None:
    img.add_file("/bin/busybox", busybox, 0o755)
    applets = subprocess.run([busybox, "--list-full"], check=True, capture_output=True,
                             text=True).stdout.split()
    for rel in applets:
        path = "/" + rel
        if path != "/bin/busybox":
            img.add_symlink(path, "/bin/busybox")
    img.add_symlink("/bin/sh", "/bin/busybox")
