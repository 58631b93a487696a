# Phase P: PTS runs of nvmonctl on the first namespace: a purge (NVMe Format
# through libnvme, which QEMU's controller supports), then a short WSAT (which
# purges again, then rounds of random 4 KiB writes); then on the second
# controller's 4Kn namespace a refused and a short 4 KiB iops run. Each run.json is printed
# between RUNJSON-BEGIN NAME / RUNJSON-END markers for the host to judge.
. /lab/lib.sh
. /lab/lab.env

D0=nvme0
S0=$(serial_of $D0)
cat > /tmp/pts.toml <<CONF
[safety]
allow_serials = ["$S0"]
CONF

# Milliseconds since boot before each step: a block cut off by its timeout
# then shows which step the time went to (the steps' rounds are timed, their
# purges and preconditioning are not).
stamp() { echo "pts_ms_$1=$(now_ms)"; }

rc=0
stamp purge
nvmonctl test run purge --target /dev/${D0}n1 --config /tmp/pts.toml --out /tmp/pts-purge
echo "purge_rc=$?"
nvmonctl test run wsat --target /dev/${D0}n1 --config /tmp/pts.toml --out /tmp/pts-wsat \
  --set rounds=3 --set round=2s --set threads=1 --set queue_depth=8 --set range=0.25
wsat_rc=$?
stamp wsat_done
echo "wsat_rc=$wsat_rc"
[ "$wsat_rc" = 0 ] || rc=1
# The volatile write cache (QEMU's controller has one, enabled): each run
# disables it for the test and puts it back. A run killed with -9 leaves it
# disabled; the next run on the drive puts it back before closing that run,
# then finds it enabled as the drive's owner left it.
wce() { nvme get-feature "/dev/$1" -f 6 2>&1 | grep -o 'Current value:[0x]*[0-9a-fA-F]*' | grep -o '.$'; }
echo "wc_after_runs=$(wce $D0)"
SHORT="--set threads=1 --set queue_depth=8 --set range=0.25"
nvmonctl test run wsat --target /dev/${D0}n1 --config /tmp/pts.toml --out /tmp/pts-kill \
  --set rounds=40 --set round=2s $SHORT > /tmp/pts-kill.log 2>&1 &
pid=$!
stamp kill_run
wait_until 60 grep -q "round" /tmp/pts-kill.log && echo "kill_round_seen=1" || echo "kill_round_seen=0"
echo "wc_during=$(wce $D0)"
stamp kill
kill -9 $pid
wait $pid 2>/dev/null
stamp killed
echo "wc_killed=$(wce $D0)"
nvmonctl test run wsat --target /dev/${D0}n1 --config /tmp/pts.toml --out /tmp/pts-kill --no-resume \
  --set rounds=1 --set round=1s $SHORT
echo "after_kill_rc=$?"
stamp after_kill_done
echo "wc_after_kill=$(wce $D0)"
cp /tmp/pts-kill/run.json /tmp/pts-after-kill.json 2>/dev/null

# The 4Kn namespace (the second controller, 4096-byte logical blocks): a
# test asking for 512-byte blocks is refused by name before anything is
# purged or written; the same test with 4 KiB blocks runs.
D1=nvme1
S1=$(serial_of $D1)
printf '[safety]\nallow_serials = ["%s"]\n' "$S1" > /tmp/pts4k.toml
echo "kn_logical_block_size=$(cat /sys/block/${D1}n1/queue/logical_block_size)"
nvmonctl test run iops --target /dev/${D1}n1 --config /tmp/pts4k.toml --out /tmp/pts-4k512 \
  --set block_sizes=4KiB,512 --set read_pcts=0 > /tmp/pts-4k512.log 2>&1
echo "kn_512_rc=$?"
echo "kn_512_run_json=$([ -e /tmp/pts-4k512/run.json ] && echo 1 || echo 0)"
echo "kn_512_said=$(grep -m1 'logical block size' /tmp/pts-4k512.log)"
nvmonctl test run iops --target /dev/${D1}n1 --config /tmp/pts4k.toml --out /tmp/pts-4kn \
  --set block_sizes=4KiB --set read_pcts=0 --set round=1s --set max_rounds=4 --set window=4 \
  --set precondition=false --set threads=1 --set queue_depth=8
echo "kn_4k_rc=$?"
stamp kn_done
cp /tmp/pts-4kn/run.json /tmp/pts-4kn.json 2>/dev/null

# I/O the emulated controller stopped completing (see guest/init): how often
# the driver gave up waiting since boot, for the report.
echo "nvme_io_timeout_s=$(cat /sys/module/nvme_core/parameters/io_timeout)"
echo "nvme_timeouts=$(dmesg | grep -c 'timeout, ')"

for run in purge wsat after-kill 4kn; do
  echo "RUNJSON-BEGIN $run"
  case $run in
    after-kill|4kn) cat /tmp/pts-$run.json ;;
    *) cat /tmp/pts-$run/run.json ;;
  esac
  echo "RUNJSON-END $run"
done
exit $rc
