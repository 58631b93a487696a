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
for run in purge wsat; do
  echo "RUNJSON-BEGIN $run"
  cat /tmp/pts-$run/run.json
  echo "RUNJSON-END $run"
done
exit $rc
