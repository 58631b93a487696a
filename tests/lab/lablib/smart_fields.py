"""THE mapping between nvmond's metrics and what nvme-cli 2.3 reports.

One row per exported series shape. If nvmond renames a metric or adds a
health series, this table is the one place to change. Sources, per drive:
  smart    `nvme smart-log /dev/nvmeX -o json`  (nvme-cli 2.3: temperatures in
           kelvin, 64/128-bit counters as decimal strings, sensors 1..8 only
           when non-zero as "temperature_sensor_N")
  idctrl   `nvme id-ctrl /dev/nvmeX -o json`    (wctemp/cctemp/mntmt/mxtmt in kelvin)
  feature  `nvme get-feature -f 4 -c 0|0x100000` (composite over/under threshold, kelvin)
  ident    sysfs + `blockdev --getsize64 /dev/nvmeXn1` (bytes)
"""
from __future__ import annotations

from dataclasses import dataclass, field
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
    _f("nvme_available_spare_ratio", "smart", "avail_spare", percent),
    _f("nvme_available_spare_threshold_ratio", "smart", "spare_thresh", percent),
    _f("nvme_percentage_used_ratio", "smart", "percent_used", percent),
    _f("nvme_endurance_group_critical_warning", "smart",
       "endurance_grp_critical_warning_summary", raw),
    _f("nvme_data_read_bytes_total", "smart", "data_units_read", data_units, counter=True),
    _f("nvme_data_written_bytes_total", "smart", "data_units_written", data_units, counter=True),
    _f("nvme_host_read_commands_total", "smart", "host_read_commands", raw, counter=True),
    _f("nvme_host_write_commands_total", "smart", "host_write_commands", raw, counter=True),
    _f("nvme_controller_busy_seconds_total", "smart", "controller_busy_time", minutes,
       counter=True),
    _f("nvme_power_cycles_total", "smart", "power_cycles", raw, counter=True),
    _f("nvme_power_on_seconds_total", "smart", "power_on_hours", hours, counter=True),
    _f("nvme_unsafe_shutdowns_total", "smart", "unsafe_shutdowns", raw, counter=True),
    _f("nvme_media_errors_total", "smart", "media_errors", raw, counter=True),
    _f("nvme_error_log_entries_total", "smart", "num_err_log_entries", raw, counter=True),
    _f("nvme_warning_temperature_seconds_total", "smart", "warning_temp_time", minutes,
       counter=True),
    _f("nvme_critical_temperature_seconds_total", "smart", "critical_comp_time", minutes,
       counter=True),
    _f("nvme_thermal_management_transitions_total", "smart", "thm_temp1_trans_count", raw,
       counter=True, level="1"),
    _f("nvme_thermal_management_transitions_total", "smart", "thm_temp2_trans_count", raw,
       counter=True, level="2"),
    _f("nvme_thermal_management_seconds_total", "smart", "thm_temp1_total_time", raw,
       counter=True, level="1"),
    _f("nvme_thermal_management_seconds_total", "smart", "thm_temp2_total_time", raw,
       counter=True, level="2"),
    _f("nvme_temperature_limit_celsius", "idctrl", "wctemp", kelvin, absent_if_zero=True,
       limit="warning"),
    _f("nvme_temperature_limit_celsius", "idctrl", "cctemp", kelvin, absent_if_zero=True,
       limit="critical"),
    _f("nvme_temperature_limit_celsius", "idctrl", "mntmt", kelvin, absent_if_zero=True,
       limit="thermal_management_min"),
    _f("nvme_temperature_limit_celsius", "idctrl", "mxtmt", kelvin, absent_if_zero=True,
       limit="thermal_management_max"),
    _f("nvme_temperature_threshold_celsius", "feature", "over_k", kelvin, absent_if_zero=True,
       sensor="composite", type="over"),
    _f("nvme_temperature_threshold_celsius", "feature", "under_k", kelvin, absent_if_zero=True,
       sensor="composite", type="under"),
    _f("nvme_capacity_bytes", "ident", "capacity", raw),
]

# Per-drive nvme_* series that are not one field of a page nvme-cli can show;
# checks.py verifies nvme_up and nvme_device_info itself. Derived series
# (DWPD, throttle events, ...) belong here once nvmond exports them.
NOT_SMART_FIELDS: set[str] = {
    "nvme_up", "nvme_device_info",
    # Derived by nvmond's wear and thermal analytics (collectors/analytics),
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

# Log pages QEMU 7.2 does not have: nvmond must not export series for them.
ABSENT_ON_QEMU_PREFIXES = ("nvme_ocp_",)

CHECKED_METRICS = {f.metric for f in FIELDS} | NOT_SMART_FIELDS
