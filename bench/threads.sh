#!/usr/bin/env bash
# Threads against one thread (issue 65): prints the table docs/speed.md quotes.
#
#   bash bench/threads.sh [ATTNZOO] [RUNS]     (default build/attnzoo, 5 runs a cell)
#
# Rows: make train's model (300 steps, whole command, hyperfine median), bench's small shape
# (N 64, B 32, D 64, H 4, L 2, F 128) and bench's reference model (N 1024, B 8, D 128, H 4,
# L 2, F 256; flash and full), each at 1 and 2 threads under --parallel ops (every product split
# among the threads: the step before issue 65) and --parallel auto (what a run now does), with
# peak memory.  PyTorch 1.13 (Debian's python3-torch) beside the small shape where installed.
# Run it on an idle machine: the cells alternate, and every figure names the CPU.
set -euo pipefail
AZ=${1:-build/attnzoo}
RUNS=${2:-5}
export OMP_WAIT_POLICY=passive
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
fam=$(grep -m1 'cpu family' /proc/cpuinfo | awk '{print $NF}'); mod=$(grep -m1 '^model\s' /proc/cpuinfo | awk '{print $NF}')
isa=$(grep -q avx512f /proc/cpuinfo && echo AVX-512 || (grep -q avx2 /proc/cpuinfo && echo AVX2 || echo SSE))
echo "# $cpu (family $fam model $mod, $isa), $(nproc) CPUs, $(date -u +%Y-%m-%d), $($AZ --version 2>/dev/null | head -n1)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# make train's model: the whole command, hyperfine's median; peak RSS from one more run
train="$AZ train --task listops --model full --steps 300 --eval-every 1000 --quiet --force --out $work/run"
cmds=()
for t in 1 2; do for p in ops auto; do cmds+=("env OMP_NUM_THREADS=$t $train --parallel $p"); done; done
hyperfine -N -w 1 -r "$RUNS" --export-json "$work/train.json" "${cmds[@]}" >/dev/null 2>&1
echo "| what | parallel | 1 thread | 2 threads | 2 / 1 | peak MB, 1 / 2 threads |"
echo "|---|---|---:|---:|---:|---:|"
for p in ops auto; do
  rss=()
  for t in 1 2; do
    env OMP_NUM_THREADS=$t /usr/bin/time -o "$work/rss" -f '%M' $train --parallel $p >/dev/null 2>&1
    rss+=("$(tail -n1 "$work/rss")")
  done
  python3 - "$work/train.json" "$p" "${rss[0]}" "${rss[1]}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); p = sys.argv[2]
m = {r["command"].split("OMP_NUM_THREADS=")[1][0]: r["median"] for r in d["results"] if r["command"].endswith(" " + p)}
print(f"| make train's model, 300 steps (s, median) | {p} | {m['1']:.2f} | {m['2']:.2f} | {m['1'] / m['2']:.2f}x | "
      f"{int(sys.argv[3]) / 1024:.0f} / {int(sys.argv[4]) / 1024:.0f} |")
EOF
done

# bench: steps/s (median of RUNS) and peak RSS
bench_row() {  # LABEL STEPS ARGS...
  local label=$1 steps=$2; shift 2
  for p in ops auto; do
    for t in 1 2; do
      for r in $(seq "$RUNS"); do
        OMP_NUM_THREADS=$t $AZ bench "$@" --steps "$steps" --parallel $p 2>/dev/null >>"$work/b-$p-$t.jsonl"
      done
    done
    python3 - "$label" "$p" "$work/b-$p-1.jsonl" "$work/b-$p-2.jsonl" <<'EOF'
import json, statistics, sys
rows = [[json.loads(l) for l in open(f)] for f in sys.argv[3:5]]
s = [statistics.median(r["steps_per_s"] for r in rs) for rs in rows]
mem = [max(r["peak_rss_mb"] for r in rs) for rs in rows]
mode = rows[1][0]["parallel"] + (f", {rows[1][0]['shards']} shards" if rows[1][0]["parallel"] == "batch" else "")
print(f"| {sys.argv[1]} (steps/s) | {sys.argv[2]} ({mode}) | {s[0]:.2f} | {s[1]:.2f} | {s[1] / s[0]:.2f}x | {mem[0]:.0f} / {mem[1]:.0f} |")
EOF
    rm -f "$work"/b-*.jsonl
  done
}
bench_row "bench N 64, B 32, D 64" 100 --model full --seq-len 64 --batch 32 --dim 64 --heads 4 --layers 2 --ffn 128
bench_row "reference model, flash" 3 --model flash
bench_row "reference model, full" 3 --model full

if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo
  for t in 1 2; do
    /usr/bin/python3 "$(dirname "$0")/compare_pytorch.py" --attnzoo "$AZ" --model full --seq-len 64 --batch 32 --dim 64 \
      --heads 4 --layers 2 --ffn 128 --steps 100 --threads $t
  done
else
  echo; echo "(PyTorch: not installed; apt-get install python3-torch for its column)"
fi
