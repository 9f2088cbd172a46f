#!/usr/bin/env bash
# Runs each libFuzzer target for FUZZ_SECONDS (default 60) on its seed corpus
# (tests/fuzz/corpus/NAME, copied into BUILD/corpus/NAME so that what the
# fuzzer learns stays out of the source tree) and its regression inputs.
# A crash, a sanitizer report, a timeout (-timeout) or an allocation over
# -rss_limit_mb leaves the input in BUILD/crashes/ and fails the run; turn it
# into a regression test by copying it to tests/fuzz/regressions/NAME/.
#   usage: run.sh BUILD NAME...
set -uo pipefail
build=$1; shift
secs=${FUZZ_SECONDS:-60}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/crashes"
# Targets run FUZZ_JOBS at a time (default: one per core), each on one core;
# their reports are printed in the order named.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
fuzz_one() {
  local name=$1 work="$build/corpus/$1" log="$build/fuzz_$1.log" rc runs cov d
  mkdir -p "$work"
  local seeds=()
  for d in "$src/corpus/$name" "$src/regressions/$name"; do [ -d "$d" ] && seeds+=("$d"); done
  # Inputs are small files: the parsers are line, header and block based.
  "$build/fuzz_$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$build/crashes/$name-" "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $name: ok, ${runs:-?} inputs in ${secs}s, $cov" >"$build/fuzz_$name.result"
  else
    { echo "fuzz $name: FAILED (exit $rc), see $log:"
      grep -E 'ERROR|SUMMARY|Test unit written|runtime error|==[0-9]+==' "$log" | head -n 12; } >"$build/fuzz_$name.result"
  fi
}
for name in "$@"; do
  rm -f "$build/fuzz_$name.result"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  OMP_NUM_THREADS=1 fuzz_one "$name" &
done
wait
failed=0
for name in "$@"; do
  if [ -f "$build/fuzz_$name.result" ]; then cat "$build/fuzz_$name.result"; else echo "fuzz $name: FAILED (no report)"; fi
  grep -q '^fuzz [^ ]*: ok,' "$build/fuzz_$name.result" 2>/dev/null || failed=$((failed + 1))
done
echo "fuzz: $(( $# - failed )) targets clean, $failed failed"
[ "$failed" -eq 0 ]
