"""Scenario caps: the systemd unit's capability set is enough for what
nvmond sends. The guest ran nvmond (and the phase-W job) under setpriv with
the unit's CapabilityBoundingSet; this judges that evidence."""
from __future__ import annotations

import re

import promtext
from .checks import Lab, Report, _guard
from .unit_caps import mask, unit_capabilities


@_guard
def check_caps(lab: Lab, rep: Report) -> None:
    """The unit's capability set is enough: nvmond ran with exactly the
    CapabilityBoundingSet of systemd/nvmond.service.in (read here, on the host)
    and still read both controllers' SMART logs (their full equivalence with
    nvme-cli on the same scrape is lab_smart's) and ran the io_uring job."""
    if not lab.have_nvmond():
        rep.skipped = "nvmond not in this run"
        return
    caps = unit_capabilities()
    want = mask(caps)
    status = dict(re.findall(r"^(\w+):\s*(\S+)", lab.text("caps.nvmond"), re.M))
    rep.check(status.get("Name") == "nvmond", "the process is nvmond", f"Name: {status.get('Name')}")
    for key in ("CapBnd", "CapPrm", "CapEff"):
        got = int(status.get(key, "-1"), 16)
        rep.check(got == want, f"{key} is the unit's {'+'.join(caps)}", f"{got:#x}, want {want:#x}")
    rep.check(int(status.get("CapAmb", "-1"), 16) == 0, "no ambient capabilities")
    samples = lab.metrics("metrics.A")
    for serial in lab.r["config"]["serials"]:
        rep.check(promtext.get(samples, "nvme_up", serial=serial) == 1, f"nvme_up of {serial} = 1")
        temp = promtext.get(samples, "nvme_temperature_celsius", serial=serial, sensor="composite")
        rep.check((temp or 0) > 0,
                  f"composite temperature of {serial} read from its SMART log")
    if lab.has("workload"):
        rep.check(re.search(r"bytes_written=[1-9]", lab.text("workload")) is not None,
                  "the io_uring job wrote with the same capabilities")
