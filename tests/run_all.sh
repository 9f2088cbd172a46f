#!/usr/bin/env bash
# Runs every test binary given, echoes their output, and ends with one line
# `tests: N passed, M failed` summed over doctest's own summaries.
passed=0; failed=0; status=0
# Sleeping rather than spinning OpenMP threads: spinning collapses when the
# machine is shared (see prefer_passive_waiting in train/main.cpp).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
for t in "$@"; do
  echo "== $t"
  t0=$(date +%s.%N)
  out=$(OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} "$t" 2>&1); rc=$?
  echo "$out" | tail -n 40
  echo "== $t: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  line=$(echo "$out" | grep -E '^\[doctest\] test cases:' | tail -n 1)
  if [ -z "$line" ]; then
    echo "!! $t produced no doctest summary (exit $rc)"; failed=$((failed+1)); status=1; continue
  fi
  p=$(echo "$line" | sed -E 's/.*\| *([0-9]+) passed.*/\1/')
  f=$(echo "$line" | sed -E 's/.*\| *([0-9]+) failed.*/\1/')
  passed=$((passed+p)); failed=$((failed+f))
  [ "$rc" -ne 0 ] && status=1
done
echo "tests: $passed passed, $failed failed"
exit $status
