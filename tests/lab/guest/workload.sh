# Phase W: one io_uring job of nvmonctl (the workload engine nvmond uses) on
# the first namespace, as the default WORKLOAD_CMD when the host gives us
# nvmonctl. Prints the job's JSON summary, then bytes_written=N write_ops=N
# for the host's data-units check. A second job aimed at the other controller
# must be refused by the safety guard (its serial is not allowed) before any I/O.
. /lab/lib.sh
. /lab/lab.env

D0=nvme0
D1=nvme1
S0=$(serial_of $D0)

job_file() {  # FILE TARGET ALLOWED_SERIAL
  cat > "$1" <<JOB
[[job]]
name = "lab-randwrite"
target = "$2"
engine = "io_uring"
pattern = "random"
bs = "$WORKLOAD_BS"
read_pct = 0
queue_depth = $WORKLOAD_QD
offset = "$WORKLOAD_OFFSET"
size = "$WORKLOAD_RANGE"
bytes = "$WORKLOAD_BYTES"

[safety]
allow_serials = ["$3"]
JOB
}

job_file /tmp/job.toml "/dev/${D0}n1" "$S0"
job_file /tmp/job-refused.toml "/dev/${D1}n1" "$S0"
cat /tmp/job.toml

# The block layer may merge two adjacent 4 KiB writes that are in flight at
# once into one command; without merging, each io_uring I/O is exactly one
# NVMe write command, which the host then checks.
q=/sys/block/${D0}n1/queue/nomerges
old_nomerges=$(cat $q)
echo 2 > $q && echo "nomerges=$(cat $q)"
nvmonctl run-job /tmp/job.toml > /tmp/job.json
rc=$?
echo "$old_nomerges" > $q
cat /tmp/job.json
# The summary is one JSON line with sorted keys, "write" last:
#   "write":{"bytes":N,...,"latency_seconds":{...},"ops":M}}
bytes=$(sed -n 's/.*"write":{"bytes":\([0-9]*\).*/\1/p' /tmp/job.json)
ops=$(sed -n 's/.*"write":{.*},"ops":\([0-9]*\)}}$/\1/p' /tmp/job.json)
echo "bytes_written=$bytes write_ops=$ops run_job_rc=$rc"

nvmonctl run-job /tmp/job-refused.toml > /tmp/job-refused.json 2> /tmp/job-refused.err
echo "refused_rc=$?"
cat /tmp/job-refused.json /tmp/job-refused.err
exit $rc
