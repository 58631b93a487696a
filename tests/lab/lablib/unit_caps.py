"""The capabilities the shipped unit (systemd/nvmond.service.in) leaves nvmond:
the lab runs the guest's nvmond with exactly these (setpriv) and checks that
the process had them and no more while it read SMART."""
from __future__ import annotations

from pathlib import Path

UNIT = Path(__file__).resolve().parents[3] / "systemd" / "nvmond.service.in"

# Kernel ABI numbers (include/uapi/linux/capability.h).
CAP_NUMBERS = {name: i for i, name in enumerate([
    "chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid",
    "setpcap", "linux_immutable", "net_bind_service", "net_broadcast", "net_admin", "net_raw",
    "ipc_lock", "ipc_owner", "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
    "sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time", "sys_tty_config", "mknod",
    "lease", "audit_write", "audit_control", "setfcap", "mac_override", "mac_admin", "syslog",
    "wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore"])}


def unit_capabilities(unit: Path = UNIT) -> list[str]:
    """Lower-case names without CAP_ of the unit's CapabilityBoundingSet (the
    allow-list form; systemd ORs repeated lines together)."""
    caps: list[str] = []
    for line in unit.read_text().splitlines():
        key, _, value = line.strip().partition("=")
        if key != "CapabilityBoundingSet":
            continue
        if value.startswith("~"):
            raise ValueError(f"{unit}: a deny-list CapabilityBoundingSet is not supported here")
        caps += [c.lower().removeprefix("cap_") for c in value.split()]
    if not caps:
        raise ValueError(f"{unit}: no CapabilityBoundingSet")
    return sorted(set(caps))


def mask(caps: list[str]) -> int:
    return sum(1 << CAP_NUMBERS[c] for c in caps)


def setpriv_args(caps: list[str]) -> str:
    """setpriv's --bounding-set value: drop everything, keep the unit's set."""
    return ",".join(["-all", *(f"+{c}" for c in caps)])
