#!/usr/bin/env bash
# Runs every test binary given, echoes their output, and ends with one line
# `tests: N passed, M failed` summed over doctest's own summaries.
# TEST_RUNNER runs each suite through a command (make test-arm64: qemu-aarch64).
# TEST_JOBS=J runs up to J suites at once (each in its own temporary
# directories, see tests/util.h); their reports still come in the order given.
passed=0; failed=0; status=0
# Sleeping rather than spinning OpenMP threads: spinning collapses when the
# machine is shared (see prefer_passive_waiting in train/cli/main.cpp).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
jobs=${TEST_JOBS:-1}
case "$jobs" in ''|*[!0-9]*|0) echo "run_all.sh: TEST_JOBS=$jobs: expected a whole number >= 1"; exit 2 ;; esac
work=$(mktemp -d /tmp/az_run_all_XXXXXX)
trap 'rm -rf "$work"' EXIT

# run I SUITE: the suite's output to $work/I.out, then its exit code and wall
# seconds to $work/I.done (written last, so that its presence means finished).
run() {
  local t0; t0=$(date +%s.%N)
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} ${TEST_RUNNER:-} "$2" >"$work/$1.out" 2>&1
  local rc=$?
  echo "$rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >"$work/$1.tmp"
  mv "$work/$1.tmp" "$work/$1.done"
}

# report I SUITE: echoes finished suite I's tail and adds its summary.
report() {
  local rc secs line p f
  read -r rc secs <"$work/$1.done"
  echo "== $2"
  # a failing suite: its failed checks first (the tail below may not reach them)
  [ "$rc" -ne 0 ] && grep -B 3 -A 12 -E '^[^ ]+:[0-9]+: (ERROR|FATAL ERROR)' "$work/$1.out" | head -n 80 && echo "-- (tail)"
  tail -n 40 "$work/$1.out"
  echo "== $2: $secs s"
  line=$(grep -E '^\[doctest\] test cases:' "$work/$1.out" | tail -n 1)
  if [ -z "$line" ]; then
    echo "!! $2 produced no doctest summary (exit $rc)"; failed=$((failed+1)); status=1; return
  fi
  p=$(echo "$line" | sed -E 's/.*\| *([0-9]+) passed.*/\1/')
  f=$(echo "$line" | sed -E 's/.*\| *([0-9]+) failed.*/\1/')
  passed=$((passed+p)); failed=$((failed+f))
  [ "$rc" -ne 0 ] && status=1
}

suites=("$@")
next=0      # the next suite to start
reported=0  # the next suite to report
while [ "$reported" -lt "${#suites[@]}" ]; do
  running=0
  for ((i = reported; i < next; i++)); do [ -f "$work/$i.done" ] || running=$((running + 1)); done
  while [ "$next" -lt "${#suites[@]}" ] && [ "$running" -lt "$jobs" ]; do
    run "$next" "${suites[$next]}" &
    next=$((next + 1)); running=$((running + 1))
  done
  if [ -f "$work/$reported.done" ]; then
    report "$reported" "${suites[$reported]}"
    reported=$((reported + 1))
  else
    sleep 0.1
  fi
done
wait
echo "tests: $passed passed, $failed failed"
exit $status
