"""THE mapping between nvmond's metrics and what nvme-cli 2.3 reports.

One row per exported series shape. If nvmond renames a metric or adds a
health series, this table is the one place to change. Sources, per drive:
  smart    `nvme smart-log /dev/nvmeX -o json`  (nvme-cli 2.3: temperatures in
           kelvin, 64/128-bit counters as decimal strings, sensors 1..8 only
           when non-zero as "temperature_sensor_N")
  idctrl   `nvme id-ctrl /dev/nvmeX -o json`    (wctemp/cctemp/mntmt/mxtmt in kelvin)
  feature  `nvme get-feature -f 4 -c 0|0x100000` (composite over/under threshold, kelvin)
  hctm     `nvme get-feature -f 0x10` (TMT1 bits 31:16, TMT2 15:0, kelvin), only where
           id-ctrl's HCTMA bit 0 is set and the command succeeded (else nothing)
  ident    sysfs + `blockdev --getsize64 /dev/nvmeXn1` (bytes)
  idns     `nvme id-ns /dev/nvmeXn1 -o json`: NSZE << LBADS of the in-use format (bytes)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

# nvmond converts like nvme-cli's own text output and libnvme (K - 273), so a
# drive reads the same in Grafana as on the console (collectors/health.hpp).
KELVIN_OFFSET = 273.0
DATA_UNIT_BYTES = 512_000  # NVMe "data unit": 1000 units of 512 bytes


def kelvin(v: int) -> float:
    return v - KELVIN_OFFSET


def percent(v: int) -> float:
    return v / 100.0


def raw(v: int) -> float:
    return float(v)


def minutes(v: int) -> float:
    return v * 60.0


def hours(v: int) -> float:
    return v * 3600.0


def data_units(v: int) -> float:
    return float(v * DATA_UNIT_BYTES)


def bit(n: int) -> Callable[[int], float]:
    return lambda v: float((v >> n) & 1)


@dataclass(frozen=True)
class Field:
    metric: str
    labels: dict[str, str]
    source: str  # smart | idctrl | feature | ident
    key: str
    convert: Callable[[int], float]
    # Counters may move between two nvme-cli readings taken around a scrape;
    # the metric must then lie between them.
    counter: bool = False
    # nvmond leaves out absent sensors and unreported limits (value 0 or key missing).
    absent_if_zero: bool = False


def _f(metric: str, source: str, key: str, convert: Callable[[int], float], *,
       counter: bool = False, absent_if_zero: bool = False, **labels: str) -> Field:
    return Field(metric, labels, source, key, convert, counter, absent_if_zero)


WARNING_BITS = ["spare", "temperature", "reliability", "read_only", "volatile_backup", "pmr"]

FIELDS: list[Field] = [
    _f("nvme_temperature_celsius", "smart", "temperature", kelvin, sensor="composite"),
    *[_f("nvme_temperature_celsius", "smart", f"temperature_sensor_{i}", kelvin,
         absent_if_zero=True, sensor=str(i)) for i in range(1, 9)],
    *[_f("nvme_critical_warning", "smart", "critical_warning", bit(i), bit=name)
      for i, name in enumerate(WARNING_BITS)],
    *[_f(metric, "smart", key, percent) for metric, key in (
        ("nvme_available_spare_ratio", "avail_spare"),
        ("nvme_available_spare_threshold_ratio", "spare_thresh"), ("nvme_percentage_used_ratio", "percent_used"))],
    _f("nvme_endurance_group_critical_warning", "smart",
       "endurance_grp_critical_warning_summary", raw),
    # Counters, converted from nvme-cli's units to bytes, seconds or a count.
    *[_f(metric, "smart", key, convert, counter=True) for metric, key, convert in (
        ("nvme_data_read_bytes_total", "data_units_read", data_units),
        ("nvme_data_written_bytes_total", "data_units_written", data_units),
        ("nvme_host_read_commands_total", "host_read_commands", raw),
        ("nvme_host_write_commands_total", "host_write_commands", raw),
        ("nvme_controller_busy_seconds_total", "controller_busy_time", minutes),
        ("nvme_power_cycles_total", "power_cycles", raw), ("nvme_power_on_seconds_total", "power_on_hours", hours),
        ("nvme_unsafe_shutdowns_total", "unsafe_shutdowns", raw), ("nvme_media_errors_total", "media_errors", raw),
        ("nvme_error_log_entries_total", "num_err_log_entries", raw),
        ("nvme_warning_temperature_seconds_total", "warning_temp_time", minutes),
        ("nvme_critical_temperature_seconds_total", "critical_comp_time", minutes))],
    *[_f(metric, "smart", f"thm_temp{level}_{key}", raw, counter=True, level=str(level))
      for metric, key in (("nvme_thermal_management_transitions_total", "trans_count"),
                          ("nvme_thermal_management_seconds_total", "total_time"))
      for level in (1, 2)],
    *[_f("nvme_temperature_limit_celsius", "idctrl", key, kelvin, absent_if_zero=True, limit=limit)
      for key, limit in (("wctemp", "warning"), ("cctemp", "critical"),
                         ("mntmt", "thermal_management_min"), ("mxtmt", "thermal_management_max"))],
    *[_f("nvme_temperature_limit_celsius", "hctm", key, kelvin, absent_if_zero=True, limit=key)
      for key in ("tmt1", "tmt2")],
    *[_f("nvme_temperature_threshold_celsius", "feature", f"{kind}_k", kelvin, absent_if_zero=True,
         sensor="composite", type=kind) for kind in ("over", "under")],
    _f("nvme_capacity_bytes", "ident", "capacity", raw),
    _f("nvme_capacity_bytes", "idns", "capacity", raw),
]

# Per-drive nvme_* series that are not one field of a page nvme-cli can show;
# health_checks.py verifies nvme_up and nvme_device_info itself. Derived series
# (DWPD, throttle events, ...) belong here once nvmond exports them.
NOT_SMART_FIELDS: set[str] = {
    "nvme_up", "nvme_device_info",
    # Derived by nvmond's wear and thermal analytics (analytics/),
    # not single fields of a log page; the thermal scenario checks the events.
    "nvme_dwpd", "nvme_dwpd_window_covered_seconds", "nvme_endurance_used_ratio",
    "nvme_host_write_rate_bytes_per_second", "nvme_projected_wearout_timestamp_seconds",
    "nvme_rated_dwpd", "nvme_rated_endurance_bytes", "nvme_rated_endurance_info",
    "nvme_thermal_throttle_events_total", "nvme_thermal_throttle_last_peak_celsius",
    "nvme_thermal_throttle_level", "nvme_thermal_throttle_level_events_total",
    "nvme_thermal_throttle_level_seconds_total", "nvme_thermal_throttle_merged_events_total",
    "nvme_thermal_throttle_seconds_total", "nvme_thermal_throttling",
    "nvme_write_amplification_ratio", "nvme_write_rate_over_rating",
}

# Compared by check_drive_evidence (health_checks.py) against nvme-cli's
# error-log and the kernel's PCI attributes.
EVIDENCE_METRICS: set[str] = {
    "nvme_error_log_read_entries_total", "nvme_pcie_link_degraded",
    "nvme_pcie_link_speed_transfers_per_second", "nvme_pcie_link_width_lanes",
}

# Log pages QEMU 7.2 does not have (OCP C0; Device Self-test, OACS bit 4
# clear; Persistent Event log, LPA bit 4 clear): nvmond must not export
# series for them.
ABSENT_ON_QEMU_PREFIXES = ("nvme_ocp_", "nvme_self_test_", "nvme_event_log_")

CHECKED_METRICS = {f.metric for f in FIELDS} | NOT_SMART_FIELDS | EVIDENCE_METRICS
