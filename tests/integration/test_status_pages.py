"""`nvmonctl status` shows every condition that pages critical: each critical
alert in grafana/rules has a row in STATUS_OF saying where status shows its
condition (a column, a SMART warning bit, or one of the daemon's named
conditions), so a new critical alert without one fails here; and a daemon
on simulated drives that meet those conditions shows each of them in
`status --json` and in the table's WARNINGS column."""
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from grafana_files import rules  # noqa: E402
from nvmond_harness import SANITIZED, SOURCE_DIR, Daemon, config, nvmonctl, sim, table, wait_for  # noqa: E402

# alert -> (field of `status --json`'s drive, what it holds while the alert's condition is met)
STATUS_OF = {
    "NvmeDriveDown": ("up", False),
    "NvmeSpareBelowThresholdWarning": ("critical_warnings", "spare"),
    "NvmeAvailableSpareBelowThreshold": ("critical_warnings", "spare"),  # the drive's own bit 0
    "NvmeTemperatureWarningBit": ("critical_warnings", "temperature"),
    "NvmeReliabilityDegraded": ("critical_warnings", "reliability"),
    "NvmeReadOnly": ("critical_warnings", "read_only"),
    "NvmeVolatileBackupFailed": ("critical_warnings", "volatile_backup"),
    "NvmePercentageUsedCritical": ("percentage_used", "> 0.90"),
    "NvmeErrorLogMediaOrPathErrors": ("media_path_errors", "> 0"),
    "NvmeThermalThrottling": ("throttling", True),
    "NvmeTemperatureCritical": ("conditions", "temperature_critical"),
    "NvmeSelfTestFailed": ("conditions", "self_test_failed"),
    "NvmeDrivePanic": ("conditions", "firmware_panic"),
    "NvmeProjectedWearoutImminent": ("conditions", "wearout_imminent"),
}
# Critical alerts status cannot show, and why.
NOT_IN_STATUS = {
    "NvmondTargetDown": "nvmond itself is not answering: nvmonctl cannot reach it either, and says so",
}

# Drives that meet the conditions, on an hour of drive time a second.
CONFIG = config(
    table("[control]", socket="@SOCKET@"),
    table("[clock]", mode="accelerated", factor=3600),
    # Its last self-test failed, its firmware reports a panic, its media fails now and then.
    sim("broken", "SIM-BROKEN", "datacenter", ocp_panic=True, self_test_failure=True, media_error_interval="1h"),
    # A bare M.2 drive written at 600 MB/s: it throttles at its 83 C warning
    # temperature, and its 480 TBW are gone within 10 days.
    sim("wearing", "SIM-WEARING", "consumer", write_rate="600MB"),
    # The same drive with its critical temperature below where it throttles.
    sim("scorching", "SIM-SCORCHING", "consumer", write_rate="600MB", warning_temp_c=70, critical_temp_c=75),
    poll_interval="10s")
LIVE = {
    "NvmeSelfTestFailed": "SIM-BROKEN",
    "NvmeDrivePanic": "SIM-BROKEN",
    "NvmeErrorLogMediaOrPathErrors": "SIM-BROKEN",
    "NvmeThermalThrottling": "SIM-WEARING",
    "NvmeTemperatureWarningBit": "SIM-WEARING",
    "NvmeProjectedWearoutImminent": "SIM-WEARING",
    "NvmeTemperatureCritical": "SIM-SCORCHING",
}


def shows(drive, field, want):
    have = drive.get(field)
    if isinstance(want, str) and want.startswith(">"):
        return have is not None and have > float(want[1:])
    if isinstance(have, list):
        return want in have
    return have == want


def critical_alerts():
    return {r["alert"] for _, r in rules() if "alert" in r and r["labels"]["severity"] == "critical"}


class StatusPages(unittest.TestCase):
    def test_every_critical_alert_has_its_place_in_status(self):
        missing = critical_alerts() - set(STATUS_OF) - set(NOT_IN_STATUS)
        self.assertFalse(missing, f"critical alerts nvmonctl status does not show: {sorted(missing)}; "
                                  "name their condition in status and add them to STATUS_OF")
        stale = (set(STATUS_OF) | set(NOT_IN_STATUS)) - critical_alerts()
        self.assertFalse(stale, f"no such critical alert: {sorted(stale)}")

    def test_every_name_in_the_table_is_one_the_daemon_gives(self):
        with open(os.path.join(SOURCE_DIR, "collectors", "health.hpp")) as f:
            bits = set(re.findall(r'\{kWarn\w+, "(\w+)"\}', f.read()))
        with open(os.path.join(SOURCE_DIR, "collectors", "drive_summary.hpp")) as f:
            conditions = set(re.findall(r'inline constexpr const char\* k\w+ = "(\w+)";', f.read()))
        for alert, (field, want) in STATUS_OF.items():
            if field == "critical_warnings":
                self.assertIn(want, bits, alert)
            if field == "conditions":
                self.assertIn(want, conditions, alert)

    @unittest.skipIf(SANITIZED,
                     "the simulated drives heat with their engines' progress, which the sanitizers slow: "
                     "a drive meant to pass its WCTEMP may not in time (the plain build runs it)")
    def test_a_daemon_shows_each_condition_its_drives_meet(self):
        workdir = tempfile.mkdtemp(prefix="nvmond-pages-")
        sock = os.path.join(workdir, "control.sock")
        d = Daemon(CONFIG.replace("@SOCKET@", sock), workdir=workdir).start()
        try:
            wait_for(lambda: os.path.exists(sock), 10, "the control socket")
            last = {}

            def all_shown():
                r = nvmonctl("--socket", sock, "status", "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                last["drives"] = drives = {x["serial"]: x for x in json.loads(r.stdout)["drives"]}
                return all(serial in drives and shows(drives[serial], *STATUS_OF[alert])
                           for alert, serial in LIVE.items())
            try:
                wait_for(all_shown, 90, "every condition in status --json")
            except AssertionError as e:
                raise AssertionError(f"{e}\n{json.dumps(last.get('drives'), indent=1)}\n{d.log_text()[-2000:]}")

            # The text view is a second snapshot: a drive throttling near its
            # WCTEMP may have dipped below it since, so it is waited for too.
            def text_shows_all():
                text = nvmonctl("--socket", sock, "status")
                self.assertEqual(text.returncode, 0, text.stderr)
                rows = {line.split()[0]: line for line in text.stdout.splitlines() if line.startswith("SIM-")}
                last["rows"] = rows
                return all(want in rows.get(serial, "").split()[-1:][0].split(",")
                           if rows.get(serial) else False
                           for alert, serial in LIVE.items()
                           for field, want in [STATUS_OF[alert]]
                           if field in ("critical_warnings", "conditions"))
            try:
                wait_for(text_shows_all, 90, "every condition in the text status")
            except AssertionError as e:
                raise AssertionError(f"{e}\n{json.dumps(last.get('rows'), indent=1)}")
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
