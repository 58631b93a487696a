# Helpers for the guest scripts (busybox sh). Every wait is bounded by a
# deadline; polling is the only way to see an effect the host caused.

# wait_until SECONDS CMD...: polls CMD every 0.2 s; status 1 at the deadline.
wait_until() {
  _end=$(( $(date +%s) + $1 )); shift
  while ! "$@"; do
    [ "$(date +%s)" -ge "$_end" ] && return 1
    usleep 200000
  done
  return 0
}

# block NAME CMD...: runs CMD and prints its output between markers.
block() {
  _name=$1; shift
  echo "LAB-BEGIN $_name"
  "$@" 2>&1
  _rc=$?
  echo "LAB-END $_name rc=$_rc"
  return $_rc
}

# Milliseconds since boot, for latencies reported to the host (not asserted).
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

METRICS_URL=http://127.0.0.1:9947/metrics
SCRAPE_OK=0
SCRAPE_FAIL=0

# scrape: fetches /metrics into /tmp/metrics.txt; counts successes and failures.
scrape() {
  # busybox 1.35 wget segfaults with -T; `timeout` bounds it instead.
  if timeout 5 wget -q -O /tmp/metrics.new "$METRICS_URL" 2>/dev/null; then
    mv /tmp/metrics.new /tmp/metrics.txt
    SCRAPE_OK=$((SCRAPE_OK + 1))
    return 0
  fi
  SCRAPE_FAIL=$((SCRAPE_FAIL + 1))
  return 1
}

# mval NAME LABEL=VALUE...: value of the first sample in /tmp/metrics.txt whose
# name is NAME and whose labels include every LABEL="VALUE"; empty if none.
mval() {
  awk -v name="$1" -v want="$(shift; echo "$*")" '
    BEGIN { n = split(want, w, " ") }
    {
      split($0, parts, "{"); if (parts[1] != name) next
      ok = 1
      for (i = 1; i <= n; i++) {
        eq = index(w[i], "="); k = substr(w[i], 1, eq - 1); v = substr(w[i], eq + 1)
        if (index($0, k "=\"" v "\"") == 0) { ok = 0; break }
      }
      if (ok) { print $NF; exit }
    }' /tmp/metrics.txt 2>/dev/null
}

# metric_is VALUE NAME LABEL=VALUE...: scrapes, then compares numerically.
metric_is() {
  _want=$1; shift
  scrape || return 1
  _got=$(mval "$@")
  [ -n "$_got" ] && awk -v a="$_got" -v b="$_want" 'BEGIN { exit !(a + 0 == b + 0) }'
}

# metric_at_least MIN NAME LABEL=VALUE...: scrapes; true once the value is >= MIN.
metric_at_least() {
  _min=$1; shift
  scrape || return 1
  _got=$(mval "$@")
  [ -n "$_got" ] && awk -v a="$_got" -v b="$_min" 'BEGIN { exit !(a + 0 >= b + 0) }'
}

# sysfs keeps the Identify string's space padding; nvmond's labels are trimmed.
serial_of() { sed 's/ *$//' "/sys/class/nvme/$1/serial"; }

# exited PID: true once PID is gone or a zombie (our own children stay zombies
# until `wait`, so `kill -0` would keep answering yes).
exited() {
  [ ! -e "/proc/$1" ] || grep -q '^[0-9]* (.*) Z' "/proc/$1/stat"
}
