#!/usr/bin/env bash
# The scaling figure of README ("Training on several processes or machines"):
# training steps per second of one run (the same global batch) as
#   1 process x 2 threads      build/attnzoo,     OMP_NUM_THREADS=2
#   2 processes x 1 thread     build/attnzoo-mpi under mpirun -np 2
#   1 process x 1 thread       build/attnzoo,     OMP_NUM_THREADS=1  (for reference)
#   1 process x 2 threads, OMP_WAIT_POLICY=passive: OpenMP threads that sleep
#                              instead of spinning while they wait (reference)
# interleaved REPS times, so that a busy spell of a shared machine hits all
# four alike; prints every run, then the medians and the ratio.  The rate is
# taken between the first and the last logged step: start-up, data generation
# and the final evaluation are left out.
#
#   tests/mpi/scaling.sh [REPS] [STEPS] [more train flags...]
set -euo pipefail
REPS=${1:-5}
STEPS=${2:-30}
shift $(( $# < 2 ? $# : 2 ))
BIN=${ATTNZOO_BIN:-build/attnzoo}
MPI_BIN=${ATTNZOO_MPI_BIN:-build/attnzoo-mpi}
ROOT=""
[ "$(id -u)" -eq 0 ] && ROOT=--allow-run-as-root
ARGS="train --task listops --model full --batch 32 --steps $STEPS --log-every 5 --eval-every $STEPS --eval-limit 32 --quiet $*"
OUT=$(mktemp -d /tmp/attnzoo-scaling-XXXXXX)
trap 'rm -rf "$OUT"' EXIT

# steps/s between the first and the last training line of metrics.jsonl
rate() {
  awk '/"loss"/ { match($0, /"step": [0-9]+/); s = substr($0, RSTART + 8, RLENGTH - 8) + 0;
                  match($0, /"elapsed": [0-9.]+/); e = substr($0, RSTART + 11, RLENGTH - 11) + 0;
                  if (n++ == 0) { s0 = s; e0 = e } }
       END { printf "%.3f", (s - s0) / (e - e0) }' "$1/metrics.jsonl"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$REPS"); do
  OMP_NUM_THREADS=2 "$BIN" $ARGS --out "$OUT/a$r" >/dev/null 2>&1
  mpirun -np 2 $ROOT -x OMP_NUM_THREADS=1 "$MPI_BIN" $ARGS --out "$OUT/b$r" </dev/null >/dev/null 2>&1
  OMP_NUM_THREADS=1 "$BIN" $ARGS --out "$OUT/c$r" >/dev/null 2>&1
  OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 "$BIN" $ARGS --out "$OUT/d$r" >/dev/null 2>&1
  echo "run $r: 1x2 $(rate "$OUT/a$r")  2x1 $(rate "$OUT/b$r")  1x1 $(rate "$OUT/c$r")  1x2-passive $(rate "$OUT/d$r") steps/s" \
       "(load $(cut -d' ' -f1 /proc/loadavg))"
done
a=$(for r in $(seq 1 "$REPS"); do rate "$OUT/a$r"; echo; done | median)
b=$(for r in $(seq 1 "$REPS"); do rate "$OUT/b$r"; echo; done | median)
c=$(for r in $(seq 1 "$REPS"); do rate "$OUT/c$r"; echo; done | median)
d=$(for r in $(seq 1 "$REPS"); do rate "$OUT/d$r"; echo; done | median)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median steps/s: 1 process x 2 threads $a, 2 processes x 1 thread $b, 1 process x 1 thread $c," \
     "1 process x 2 passive threads $d"
awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {
  printf "2 processes x 1 thread / 1 process x 2 threads = %.2f (/ 2 passive threads %.2f); 1x2 / 1x1 = %.2f; 2x1 / 1x1 = %.2f\n",
         b / a, b / d, a / c, b / c }'
