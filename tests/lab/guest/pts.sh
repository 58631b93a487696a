# Phase P: PTS runs of nvmonctl on the first namespace: a purge (NVMe Format
# through libnvme, which QEMU's controller supports), then a short WSAT (which
# purges again, then rounds of random 4 KiB writes). Each run.json is printed
# between RUNJSON-BEGIN NAME / RUNJSON-END markers for the host to judge.
. /lab/lib.sh
. /lab/lab.env

D0=nvme0
S0=$(serial_of $D0)
cat > /tmp/pts.toml <<CONF
[safety]
allow_serials = ["$S0"]
CONF

rc=0
nvmonctl test run purge --target /dev/${D0}n1 --config /tmp/pts.toml --out /tmp/pts-purge
echo "purge_rc=$?"
nvmonctl test run wsat --target /dev/${D0}n1 --config /tmp/pts.toml --out /tmp/pts-wsat \
  --set rounds=3 --set round=2s --set threads=1 --set queue_depth=8 --set range=0.25
wsat_rc=$?
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
wait_until 60 grep -q "round" /tmp/pts-kill.log && echo "kill_round_seen=1" || echo "kill_round_seen=0"
echo "wc_during=$(wce $D0)"
kill -9 $pid
wait $pid 2>/dev/null
echo "wc_killed=$(wce $D0)"
nvmonctl test run wsat --target /dev/${D0}n1 --config /tmp/pts.toml --out /tmp/pts-kill --no-resume \
  --set rounds=1 --set round=1s $SHORT
echo "after_kill_rc=$?"
echo "wc_after_kill=$(wce $D0)"
cp /tmp/pts-kill/run.json /tmp/pts-after-kill.json 2>/dev/null

for run in purge wsat after-kill; do
  echo "RUNJSON-BEGIN $run"
  if [ "$run" = after-kill ]; then cat /tmp/pts-after-kill.json; else cat /tmp/pts-$run/run.json; fi
  echo "RUNJSON-END $run"
done
exit $rc
