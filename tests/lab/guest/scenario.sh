# The lab scenario, run once per boot by /init. One boot serves every check:
#   A  SMART equivalence: write a known amount, nvme-cli before/after, nvmond's /metrics
#   W  (hook) a workload through nvmond's io_uring engine, data units compared
#   P  PTS runs of nvmonctl: purge (NVMe Format), then a short WSAT; run.json
#   C  thermal: over-temperature threshold below the composite temperature
#      (Set Features FID 04h) and critical-warning bits raised over QMP
#   B  device failure: the host removes the second controller (QMP device_del)
# B comes last because it takes a controller away. The guest only gathers
# evidence into LAB-BEGIN/END blocks; the host (lablib/checks.py, with health_checks.py and io_checks.py) judges it.
. /lab/lib.sh
. /lab/lab.env

D0=nvme0
D1=nvme1
S0=$(serial_of $D0)
S1=$(serial_of $D1)

smart() { nvme smart-log "/dev/$1" -o json; }
# Temperature Threshold (FID 04h) of the composite sensor: over (THSEL 0), under (THSEL 1).
thresholds() {
  nvme get-feature "/dev/$1" -f 4 -c 0 && nvme get-feature "/dev/$1" -f 4 -c 0x100000
}

ident() {
  for d in $D0 $D1; do
    echo "dev=$d serial=$(serial_of $d) model=$(cat /sys/class/nvme/$d/model)" \
         "firmware=$(cat /sys/class/nvme/$d/firmware_rev)" \
         "capacity=$(blockdev --getsize64 /dev/${d}n1)"
  done
}

write_direct() {  # DEV MIB: O_DIRECT writes of 1 MiB, then a flush
  dd if=/dev/urandom of=/tmp/chunk bs=1M count=1 2>/dev/null
  i=0
  while [ $i -lt "$2" ]; do
    dd if=/tmp/chunk of="/dev/${1}n1" bs=1M count=1 seek=$i oflag=direct conv=notrunc 2>/dev/null \
      || { echo "dd failed at MiB $i"; return 1; }
    i=$((i + 1))
  done
  nvme flush "/dev/${1}n1" && echo "wrote $2 MiB to /dev/${1}n1 bytes=$(($2 * 1048576))"
}

# nvmonctl asks the running daemon here (status, selftest status).
CONTROL_SOCKET=/tmp/nvmond/control.sock
ctl() { nvmonctl --socket "$CONTROL_SOCKET" "$@"; }

start_nvmond() {
  mkdir -p /etc /tmp/nvmond
  cat > /etc/nvmond.toml <<EOF
[daemon]
listen = "127.0.0.1:9947"
state_dir = "/tmp/nvmond"

[collection]
poll_interval = "$POLL_INTERVAL"
command_timeout = "2s"
rescan_interval = "2s"

[nvme]
devices = "all"

[control]
socket = "$CONTROL_SOCKET"
EOF
  block nvmond.toml cat /etc/nvmond.toml
  $AS_UNIT nvmond --config /etc/nvmond.toml 2>/tmp/nvmond.log &
  NVMOND_PID=$!
  echo "LAB: nvmond-started pid=$NVMOND_PID"
}

# nvmond and the workload run with the capabilities the systemd unit leaves
# them (its CapabilityBoundingSet, from the host): root whose bounding set
# holds only those, so every exec gets them and no more. util-linux's setpriv
# by its path: busybox's shell would run its own setpriv applet, which has no
# --bounding-set.
AS_UNIT=
if [ -n "$UNIT_BOUNDING_SET" ] && [ -x /usr/lib/lab/setpriv ]; then
  AS_UNIT="/usr/lib/lab/setpriv --bounding-set=$UNIT_BOUNDING_SET --inh-caps=-all"
fi

both_up() { metric_is 1 nvme_up serial="$S0" && [ "$(mval nvme_up serial="$S1")" = 1 ]; }

# --- A: SMART equivalence --------------------------------------------------
echo "LAB: phase A"
block ident ident
for d in $D0 $D1; do
  block "idctrl.$d" nvme id-ctrl "/dev/$d" -o json
  block "smart.A0.$d" smart $d
  block "thresh.A.$d" thresholds $d
  # Host Controlled Thermal Management (FID 10h): TMT1/TMT2, or a refusal.
  block "hctm.A.$d" nvme get-feature "/dev/$d" -f 0x10
  block "errlog.A.$d" nvme error-log "/dev/$d" -o json
  block "idns.A.$d" nvme id-ns "/dev/${d}n1" -o json
  # The pages QEMU's controller lacks, as nvme-cli asks for them (each must fail).
  block "selftestlog.A.$d" nvme self-test-log "/dev/$d" -o json
  block "pel.A.$d" nvme persistent-event-log "/dev/$d" -o json
  block "telemetry.A.$d" nvme telemetry-log "/dev/$d" --controller-init --output-file="/tmp/telemetry.$d.bin"
  # The link as the kernel's PCI core shows it, beside nvmond's reading.
  # The port above it too: the lab puts each controller behind a PCIe root
  # port of a q35 machine, as servers do.
  block "link.A.$d" sh -c "cd -P /sys/class/nvme/$d/device && for f in current_link_speed max_link_speed current_link_width max_link_width; do echo \"\$f=\$(cat \$f)\"; done && cd .. && echo port_class=\$(cat class) && echo port_max_link_speed=\$(cat max_link_speed) && echo port_max_link_width=\$(cat max_link_width)"
done
block write.A write_direct $D0 "$WRITE_MIB"
for d in $D0 $D1; do block "smart.A1.$d" smart $d; done

if [ "$HAVE_NVMOND" = 1 ]; then
  start_nvmond
  # nvmond started after smart.A1, so its first poll already sees the write.
  wait_until 60 both_up || echo "LAB: fail nvmond never reported both drives up"
  # Serving by now, so setpriv has long exec'd nvmond: these are nvmond's own.
  block caps.nvmond grep -E '^(Name|CapPrm|CapEff|CapBnd|CapAmb):' /proc/$NVMOND_PID/status
  block metrics.A cat /tmp/metrics.txt
  for d in $D0 $D1; do block "smart.A2.$d" smart $d; done
  # nvmond's other face: nvmonctl's view of the same drives, between nvme-cli
  # readings (smart.A2 before, smart.A3 after).
  block status.A ctl status --json
  for d in $D0 $D1; do block "smart.A3.$d" smart $d; done
  for d in $D0 $D1; do block "selftest-status.A.$d" ctl selftest status "$(serial_of $d)"; done
fi

# --- W: workload through nvmond's io_uring engine ---------------------------
# WORKLOAD_CMD (default with nvmonctl: guest/workload.sh) writes to
# /dev/nvme0n1 only and prints "bytes_written=N" (and write_ops=N); nothing
# else writes while it runs (nvmond only reads), so both controllers' SMART
# counters around it are the job's alone.
if [ -n "$WORKLOAD_CMD" ]; then
  echo "LAB: phase W"
  for d in $D0 $D1; do block "smart.W0.$d" smart $d; done
  # Bounded, so a hung job fails this phase by name and the others still run.
  block workload timeout 150 $AS_UNIT sh -c "$WORKLOAD_CMD"
  for d in $D0 $D1; do block "smart.W1.$d" smart $d; done
fi

# --- P: PTS runs (purge, short WSAT) of nvmonctl on nvme0n1 ------------------
# After W, whose data-units check must see the job's writes alone.
if command -v nvmonctl > /dev/null 2>&1; then
  echo "LAB: phase P"
  # A step cut off by the timeout leaves the kernel's word on the drives
  # (I/O timeouts, controller resets) for the evidence.
  block pts timeout 240 sh /lab/pts.sh ||
    block pts.dmesg sh -c 'dmesg | grep -i -e nvme -e blk | tail -n 20'
fi

if [ "$HAVE_NVMOND" != 1 ]; then
  echo "LAB: phase-skip C B (no nvmond)"
  exit 0
fi

# --- C: thermal -------------------------------------------------------------
echo "LAB: phase C"
# FID 04h dword 11: TMPTH bits 15:0 (kelvin), TMPSEL 0 = composite, THSEL 0 = over.
t0=$(now_ms)
block set-threshold.C nvme set-feature /dev/$D0 -f 4 -v "$LOW_THRESHOLD_K"
block smart.C1.$D0 smart $D0
if wait_until 30 metric_is 1 nvme_critical_warning serial="$S0" bit=temperature; then
  echo "LAB: thermal-seen ms=$(( $(now_ms) - t0 ))"
else
  echo "LAB: fail temperature warning bit never reached 1"
fi
block metrics.C1 cat /tmp/metrics.txt
block smart.C1b.$D0 smart $D0
block thresh.C1.$D0 thresholds $D0

# Other warning bits, raised by the host through QOM (smart_critical_warning).
echo "LAB: request critical-warning serial=$S1 value=$QMP_WARNING"
wait_until 30 sh -c "nvme smart-log /dev/$D1 -o json | grep -q '\"critical_warning\" *: *$QMP_WARNING,'" \
  || echo "LAB: fail controller $D1 never reported critical_warning=$QMP_WARNING"
block smart.C2.$D1 smart $D1
wait_until 30 metric_is 1 nvme_critical_warning serial="$S1" bit=volatile_backup \
  || echo "LAB: fail volatile_backup bit never reached 1"
block metrics.C2 cat /tmp/metrics.txt
block smart.C2b.$D1 smart $D1

# Back to the default threshold: the warning bit must clear again.
t0=$(now_ms)
block restore-threshold.C nvme set-feature /dev/$D0 -f 4 -v "$DEFAULT_THRESHOLD_K"
if wait_until 30 metric_is 0 nvme_critical_warning serial="$S0" bit=temperature; then
  echo "LAB: thermal-cleared ms=$(( $(now_ms) - t0 ))"
else
  echo "LAB: fail temperature warning bit never went back to 0"
fi
block metrics.C3 cat /tmp/metrics.txt

# --- B: device failure ------------------------------------------------------
echo "LAB: phase B"
SCRAPE_OK=0
SCRAPE_FAIL=0
scrape
echo "LAB: request remove serial=$S1"
wait_until 60 sh -c "! test -e /sys/class/nvme/$D1" || echo "LAB: fail $D1 still present"
echo "LAB: removed present=$(ls /sys/class/nvme | tr '\n' ' ')"
wait_until 30 metric_is 0 nvme_up serial="$S1" || echo "LAB: fail nvme_up of $S1 never went to 0"
block metrics.B1 cat /tmp/metrics.txt
block write.B write_direct $D0 "$WRITE_AFTER_REMOVE_MIB"
smart $D0 > /tmp/smart.B.json
block smart.B.$D0 cat /tmp/smart.B.json
# Wait for the poll that saw the whole write, not just any change: a poll
# landing mid-write also changes the value, and that scrape would be judged
# against nvme-cli's reading after the write.
# nvme-cli prints this counter as a JSON string ("164").
units=$(sed -n 's/.*"data_units_written" *: *"\{0,1\}\([0-9][0-9]*\).*/\1/p' /tmp/smart.B.json)
[ -n "$units" ] || { echo "LAB: fail no data_units_written in smart.B"; units=999999999; }
wait_until 30 metric_at_least $((units * 512000)) nvme_data_written_bytes_total serial="$S0" \
  || echo "LAB: fail data written of $S0 did not reach nvme-cli's $((units * 512000)) after the removal"
block metrics.B2 cat /tmp/metrics.txt
block smart.B2.$D0 smart $D0
echo "LAB: scrapes-B ok=$SCRAPE_OK fail=$SCRAPE_FAIL"

# --- shutdown ---------------------------------------------------------------
kill -TERM "$NVMOND_PID"
if wait_until 20 exited "$NVMOND_PID"; then
  wait "$NVMOND_PID"
  echo "LAB: nvmond-exit rc=$?"
else
  echo "LAB: fail nvmond ignored SIGTERM"
fi
block nvmond.log tail -n 200 /tmp/nvmond.log
# The log pages QEMU's controller lacks, as nvmond said so over the whole run.
block nvmond.lacks grep -E "no (device self-test|persistent event log|error information log|controller-initiated telemetry)" /tmp/nvmond.log
exit 0
