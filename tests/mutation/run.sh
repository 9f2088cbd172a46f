#!/usr/bin/env bash
# The mutation harness (tests/mutation/README.md): puts each small bug of
# mutations.txt into a scratch copy of the tree, rebuilds only what the change
# touches, runs the suites that should catch it, and prints per mutation
# killed / survived / stale, then the kill rate.
#
#   tests/mutation/run.sh [--list | --check] [--keep] [--no-baseline] [ID-or-glob ...]
#
# --list prints the selected mutations; --check says, without building, which
# of them are stale in the tree as it is (a find: line no longer matching once).
#
# Environment: MUTATE_TIMEOUT (seconds per suite, default 300), MUTATE_JOBS
# (make -j, default 2), MUTATE_DIR (scratch directory, default a fresh
# /tmp/az_mutate_XXXXXX, removed at the end unless --keep), MUTATE_LIST (the
# list), BUILD (the warm build directory to copy, default build; it is copied to
# the scratch tree's build/ and make is told BUILD=build there, so an exported
# BUILD cannot send the rebuild elsewhere; build it with the default flags), MPI (0: no
# attnzoo-mpi; test_mpi then skips its MPI cases).
#
# Cost: the copy (the build directory is ~1.3 GB), one baseline build and run
# of every suite the selection names, then per mutation one object, the
# archive, the named suites' links and their run: 20-60 s each on 2 cores.
# Everything runs under nice -n 19.
set -uo pipefail
# The whole script is one compound command, read before it runs: editing this
# file (or the list) during a run does not change the run.
{

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
list=${MUTATE_LIST:-$here/mutations.txt}
build=${BUILD:-build}
timeout_s=${MUTATE_TIMEOUT:-300}
jobs=${MUTATE_JOBS:-2}
keep=0 baseline=1 list_only=0 check_only=0
want=()
for a in "$@"; do
  case $a in
    --keep) keep=1 ;;
    --no-baseline) baseline=0 ;;
    --list) list_only=1 ;;
    --check) check_only=1 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | grep '^#'; exit 0 ;;
    -*) echo "run.sh: unknown option $a (valid: --list --check --keep --no-baseline)" >&2; exit 2 ;;
    *) want+=("$a") ;;
  esac
done

# ---- the list: blocks of "key: value" lines after an [id] line ------------------
ids=() files=() finds=() repls=() suites=() whys=() equivs=() sections=()
section="" cur=-1
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
  lineno=$((lineno + 1))
  case $line in
    '=== '*' ===') section=$(trim "${line#===}"); section=${section%===}; section=$(trim "$section"); continue ;;
    '#'*|'') continue ;;
    '['*']')
      cur=${#ids[@]}
      ids+=("${line:1:${#line}-2}"); files+=(""); finds+=(""); repls+=(""); suites+=(""); whys+=(""); equivs+=("")
      sections+=("$section")
      continue ;;
  esac
  if [ "$cur" -lt 0 ] || [[ $line != *:* ]]; then
    echo "run.sh: $list:$lineno: expected '[id]' or 'key: value', got: $line" >&2; exit 2
  fi
  key=$(trim "${line%%:*}") val=$(trim "${line#*:}")
  case $key in
    file) files[cur]=$val ;;
    find) finds[cur]=$val ;;
    replace) repls[cur]=$val ;;
    suites) suites[cur]=$val ;;
    why) whys[cur]=$val ;;
    equivalent) equivs[cur]=$val ;;
    *) echo "run.sh: $list:$lineno: unknown key '$key' (valid: file find replace suites why equivalent)" >&2; exit 2 ;;
  esac
done < "$list"
for i in "${!ids[@]}"; do
  for k in files finds suites whys; do
    v="$k[$i]"
    if [ -z "${!v}" ]; then echo "run.sh: $list: mutation [${ids[i]}] has no '${k%s}:' line" >&2; exit 2; fi
  done
done

selected=()
for i in "${!ids[@]}"; do
  if [ ${#want[@]} -eq 0 ]; then selected+=("$i"); continue; fi
  for w in "${want[@]}"; do
    # shellcheck disable=SC2053
    if [[ ${ids[i]} == $w ]]; then selected+=("$i"); break; fi
  done
done
if [ ${#selected[@]} -eq 0 ]; then echo "run.sh: no mutation matches ${want[*]} (see --list)" >&2; exit 2; fi

if [ "$list_only" = 1 ]; then
  for i in "${selected[@]}"; do printf '%-34s %-26s %s\n' "${ids[i]}" "${files[i]}" "${whys[i]}"; done
  exit 0
fi

# Times the find: text occurs in the file (0 when the file is gone).
matches() {  # $1: file, $2: find text
  [ -f "$1" ] || { echo 0; return; }
  FIND=$2 perl -ne 'BEGIN { $f = $ENV{FIND} } $n += () = /\Q$f\E/g; END { print $n + 0 }' "$1"
}
if [ "$check_only" = 1 ]; then
  bad=0
  for i in "${selected[@]}"; do
    n=$(matches "$root/${files[i]}" "${finds[i]}")
    if [ "$n" != 1 ]; then printf 'STALE  %-34s %s: pattern matches %s times\n' "${ids[i]}" "${files[i]}" "$n"; bad=$((bad + 1)); fi
  done
  echo "check: ${#selected[@]} mutations, $bad stale"
  exit 0
fi

# ---- the scratch copy: the tree as it is now (tracked and new files), and the
# warm build directory with its times kept, so make rebuilds only what is stale
if [ ! -d "$root/$build" ]; then echo "run.sh: no warm build directory $root/$build (run make first)" >&2; exit 2; fi
if [ -n "${MUTATE_DIR:-}" ] && [ -e "$MUTATE_DIR" ] && [ -n "$(ls -A "$MUTATE_DIR" 2>/dev/null)" ]; then
  echo "run.sh: MUTATE_DIR $MUTATE_DIR is not empty (it is removed at the end): name a new directory" >&2; exit 2
fi
scratch=${MUTATE_DIR:-$(mktemp -d /tmp/az_mutate_XXXXXX)}
mkdir -p "$scratch"
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$scratch"; else echo "scratch kept in $scratch"; fi; }
trap cleanup EXIT
echo "mutation: copying the tree and $build to $scratch"
(cd "$root" && { git ls-files -z; git ls-files -z --others --exclude-standard; } | tar --null -T - -cf -) |
  (cd "$scratch" && tar -xf -) || { echo "run.sh: copying the tree failed" >&2; exit 2; }
cp -a "$root/$build" "$scratch/build" || { echo "run.sh: copying $build failed" >&2; exit 2; }
touch "$scratch/build/.deps-ok"  # the packages are there: make must not re-run deps for a newer Makefile
cd "$scratch" || exit 2
mkdir -p mutation-logs backup

use_mpi=0
if [ "${MPI:-1}" = 1 ] && command -v mpicxx >/dev/null && command -v mpirun >/dev/null; then use_mpi=1; fi

# Suites of one mutation: "name" or "name:filter" (a doctest -tc pattern).
targets_of() {  # $1: the suites field
  local t out="build/attnzoo"
  for t in $1; do
    out+=" build/tests/${t%%:*}"
    [ "${t%%:*}" = test_mpi ] && [ "$use_mpi" = 1 ] && out+=" build/attnzoo-mpi"
  done
  echo "$out"
}
# Runs the suites; prints the first that fails (and how), or nothing.
run_suites() {  # $1: the suites field, $2: log file
  local t name filter rc
  for t in $1; do
    name=${t%%:*}; filter=""
    [[ $t == *:* ]] && filter=${t#*:}
    args=(--abort-after=1 --no-intro)
    [ -n "$filter" ] && args+=("--test-case=$filter")
    OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=passive ATTNZOO_BIN=build/attnzoo \
      ATTNZOO_MPI_BIN=$([ "$use_mpi" = 1 ] && echo build/attnzoo-mpi) \
      timeout -k 10 "$timeout_s" nice -n 19 "build/tests/$name" "${args[@]}" >mutation-logs/last-run 2>&1
    rc=$?
    cat mutation-logs/last-run >>"$2"
    if [ $rc -ne 0 ]; then
      case $rc in
        124|137) echo "$t (timeout ${timeout_s}s)" ;;
        1) echo "$t" ;;
        *) echo "$t (exit $rc)" ;;
      esac
      return
    fi
    # a filter that selects nothing is a stale entry, not a pass
    if [ -n "$filter" ] && grep -q '^\[doctest\] test cases: *0 |' mutation-logs/last-run; then echo "STALE-FILTER $t"; return; fi
  done
}

# ---- baseline: every suite the selection names passes on the unchanged tree
declare -A suite_ok
all_suites=""
for i in "${selected[@]}"; do all_suites+=" ${suites[i]}"; done
all_suites=$(echo "$all_suites" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
echo "mutation: baseline build of $(targets_of "$all_suites" | wc -w) targets"
# shellcheck disable=SC2046
if ! nice -n 19 make -j"$jobs" --no-print-directory BUILD=build $(targets_of "$all_suites" | tr ' ' '\n' | sort -u) \
    >mutation-logs/baseline.build.log 2>&1; then
  echo "run.sh: the unmutated tree does not build; see $scratch/mutation-logs/baseline.build.log" >&2
  keep=1; exit 2
fi
for s in $all_suites; do
  suite_ok[$s]=1
  if [ "$baseline" = 1 ]; then
    bad=$(run_suites "$s" "mutation-logs/baseline.$(echo "$s" | tr -c 'A-Za-z0-9_.-' '_').log")
    if [[ $bad == STALE-FILTER* ]]; then
      suite_ok[$s]=2; echo "mutation: baseline: $s selects no test case: its mutations are stale"
    elif [ -n "$bad" ]; then
      suite_ok[$s]=0; echo "mutation: baseline: $s FAILS unmutated ($bad): its mutations are not counted"
    fi
  fi
done

# ---- one mutation at a time ---------------------------------------------------------
killed=0 survived=0 stale=0 nobuild=0 equiv=0 invalid=0
survivors=() stales=()
t_start=$(date +%s)
for i in "${selected[@]}"; do
  id=${ids[i]} f=${files[i]} log="mutation-logs/${ids[i]}.log"
  t0=$(date +%s)
  label=$(printf '%-34s' "$id")
  if [ ! -f "$f" ]; then
    echo "STALE     $label $f is gone"; stale=$((stale + 1)); stales+=("$id"); continue
  fi
  # the pattern must be on exactly one line, once
  n=$(matches "$f" "${finds[i]}")
  if [ "$n" != 1 ]; then
    echo "STALE     $label pattern matches $n times in $f"; stale=$((stale + 1)); stales+=("$id"); continue
  fi
  skip=""
  for s in ${suites[i]}; do
    [ "${suite_ok[$s]}" = 2 ] && skip="stale"
    [ "${suite_ok[$s]}" = 0 ] && [ -z "$skip" ] && skip="$s fails unmutated"
  done
  if [ "$skip" = stale ]; then
    echo "STALE     $label a suite filter selects no test case"; stale=$((stale + 1)); stales+=("$id"); continue
  fi
  if [ -n "$skip" ]; then echo "INVALID   $label $skip"; invalid=$((invalid + 1)); continue; fi
  # the objects that depend on the file (its own, or every includer of a header)
  mapfile -t deps < <(grep -rlF --include='*.d' -e "$f" build | sed 's/\.d$/.o/')
  rm -rf backup && mkdir -p backup
  cp -p "$f" backup/source
  for o in "${deps[@]}"; do [ -f "$o" ] && mkdir -p "backup/$(dirname "$o")" && cp -p "$o" "backup/$o"; done
  FIND=${finds[i]} REPL=${repls[i]} perl -i -pe 'BEGIN { $f = $ENV{FIND}; $r = $ENV{REPL} } s/\Q$f\E/$r/' "$f"
  if cmp -s "$f" backup/source; then echo "STALE     $label replacement changes nothing"; stale=$((stale + 1)); continue; fi
  {
    echo "== $id: $f"; diff backup/source "$f"
  } >"$log"
  result=""
  # shellcheck disable=SC2046
  if ! nice -n 19 make -j"$jobs" --no-print-directory BUILD=build $(targets_of "${suites[i]}") >>"$log" 2>&1; then
    result=NOBUILD
  else
    by=$(run_suites "${suites[i]}" "$log")
    if [[ $by == STALE-FILTER* ]]; then result=STALEFILTER; elif [ -n "$by" ]; then result=KILLED; else result=SURVIVED; fi
  fi
  # restore: the source with its old time, the objects built from it, touched so
  # that the archive and the binaries are made again from them next time
  cp -p backup/source "$f"
  for o in "${deps[@]}"; do
    if [ -f "backup/$o" ]; then cp -p "backup/$o" "$o" && touch "$o"; else rm -f "$o"; fi
  done
  dt=$(( $(date +%s) - t0 ))
  case $result in
    KILLED)
      killed=$((killed + 1))
      if [ -n "${equivs[i]}" ]; then
        echo "KILLED    $label by $by (${dt}s) -- listed as equivalent: revise the reason"
      else
        echo "KILLED    $label by $by (${dt}s)"
      fi ;;
    SURVIVED)
      if [ -n "${equivs[i]}" ]; then
        equiv=$((equiv + 1)); echo "EQUIVALENT $label survived (${dt}s): ${equivs[i]}"
      else
        survived=$((survived + 1)); survivors+=("$id: ${whys[i]}"); echo "SURVIVED  $label (${dt}s) ${whys[i]}"
      fi ;;
    NOBUILD) nobuild=$((nobuild + 1)); echo "NO-BUILD  $label the mutant does not compile (see $log)" ;;
    STALEFILTER) stale=$((stale + 1)); stales+=("$id"); echo "STALE     $label a suite filter selects no test case: ${by#STALE-FILTER }" ;;
  esac
done

counted=$((killed + survived))
echo
echo "mutation: ${#selected[@]} mutations in $(( $(date +%s) - t_start ))s: $killed killed, $survived survived," \
  "$equiv equivalent, $stale stale, $nobuild not compiling, $invalid not run (suite fails unmutated)"
if [ $counted -gt 0 ]; then
  echo "kill rate: $killed / $counted = $(awk -v k=$killed -v n=$counted 'BEGIN { printf "%.1f%%", 100 * k / n }')" \
    "(equivalent, stale and non-compiling mutants not counted)"
fi
for s in "${survivors[@]}"; do echo "  survived: $s"; done
[ ${#stales[@]} -gt 0 ] && echo "  stale (update their find: lines): ${stales[*]}"
[ "$survived" -eq 0 ]
exit
}
