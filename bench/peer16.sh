#!/usr/bin/env bash
# attnzoo against PyTorch 2 (eager; scaled_dot_product_attention, its fused CPU
# flash kernel) on the same CPU, from 1 to all cores: the peer a user would pick.
# (The project's copy of ../shared/bench/peer16.sh, which issue 55 was measured with;
# this one also packs build/bench_core and records how the linear layers' products and
# the small ops scale from 1 thread to all, and bench's per-op profile at 1 and all.)
#
#   peer16.sh pack DIR     on the build machine, from the project root: strips
#                          build/attnzoo, copies the shared libraries it links
#                          (OpenBLAS, Highway, stb, FFTW, OpenMP, gfortran) and
#                          this script with torch2_ref.py into DIR (about 8 MB
#                          packed); DIR should be ignored by git.
#   peer16.sh run DIR      on the machine to measure (x86-64, python3 with torch
#                          >= 2): prints one JSON line per measurement and a
#                          table of ratios. About 6 minutes on 16 cores.
#
# The model is bench's: N=1024 B=8 D=128 H=4 L=2 F=256 (the reference
# configuration), and N=4096 B=2. Threads: 1 2 4 8 and every core.
# The OpenMP wait policy is left at its default for both sides. PEER16_THREADS="2 16"
# sets the thread counts of the 1K rows; PEER16_QUICK=1 runs only those.
set -u
mode=${1:-}; dir=${2:-}
[ -n "$mode" ] && [ -n "$dir" ] || { sed -n 2,18p "$0"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
if [ "$mode" = pack ]; then
  [ -x build/attnzoo ] && [ -x build/bench_core ] || { echo "build/attnzoo or build/bench_core missing: run make first, from the project root"; exit 1; }
  tmp=$(mktemp -d); mkdir -p "$tmp/bin" "$tmp/lib" "$dir"
  strip -o "$tmp/bin/attnzoo" build/attnzoo
  strip -o "$tmp/bin/bench_core" build/bench_core
  for l in $(ldd build/attnzoo | awk '/=>/ {print $1}'); do
    case $l in libc.so*|libm.so*|libstdc++*|libgcc_s*|libz.so*|libdl*|libpthread*|librt*) continue;; esac
    cp -L "$(ldd build/attnzoo | awk -v l="$l" '$1==l {print $3}')" "$tmp/lib/"
  done
  tar cJf "$dir/pack.tar.xz" -C "$tmp" bin lib && rm -rf "$tmp"
  cp "$here/peer16.sh" "$here/torch2_ref.py" "$dir/"
  echo "packed: $(du -sh "$dir" | cut -f1) in $dir; on the other machine: bash $dir/peer16.sh run $dir"
  exit 0
fi
[ "$mode" = run ] || { echo "mode must be pack or run"; exit 2; }
python3 -c 'import torch.nn.functional as F; F.scaled_dot_product_attention' 2>/dev/null || { echo "run needs python3 with torch >= 2 (scaled_dot_product_attention)"; exit 1; }
out=${OUT:-$dir}/peer16.jsonl; mkdir -p "$(dirname "$out")"; : > "$out"
root=$(mktemp -d); tar xJf "$dir/pack.tar.xz" -C "$root"
export LD_LIBRARY_PATH=$root/lib
AZ=$root/bin/attnzoo; BC=$root/bin/bench_core; all=$(nproc)
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $all; $(python3 -c 'import torch; print("torch", torch.__version__)')"
ours() { OMP_NUM_THREADS=$1 timeout 120 "$AZ" bench --model "$2" --seq-len "$3" --batch "$4" --dim 128 --heads 4 --layers 2 --ffn 256 --steps 5 --warmup 1 2>/dev/null \
  | grep '^{' | tail -1 | sed "s/^{/{\"impl\": \"attnzoo\", \"threads\": $1, /" | tee -a "$out"; }
theirs() { OMP_NUM_THREADS=$1 timeout 200 python3 "$dir/torch2_ref.py" --threads "$1" --attn "$2" --n "$3" --b "$4" --steps 5 --warmup 2 2>/dev/null | tee -a "$out"; }
for t in ${PEER16_THREADS:-1 2 4 8 $all}; do ours $t flash 1024 8; ours $t full 1024 8; theirs $t sdpa,full 1024 8; done
[ -n "${PEER16_QUICK:-}" ] && set -- quick   # PEER16_QUICK=1: the 1K rows only (a check of the script, a minute on 16 cores)
[ "${1:-}" = quick ] || for t in 2 $all; do ours $t flash 4096 2; theirs $t sdpa 4096 2; done
[ "${1:-}" = quick ] || for m in local linformer performer linear; do ours 2 $m 4096 2; theirs 2 $m 4096 2; done
[ "${1:-}" = quick ] || for t in 2 $all; do
  OMP_NUM_THREADS=$t timeout 120 "$AZ" train --task listops --model full --steps 150 --eval-every 150 --quiet --out "$root/listops$t" >/dev/null 2>&1
  python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; f=[x for x in r if x.get('final')][0]; print(json.dumps({'impl':'attnzoo','job':'make-train model, 150 steps','threads':$t,'train_seconds':round(f['train_seconds'],2)}))" "$root/listops$t/metrics.jsonl" 2>/dev/null | tee -a "$out"
done
# the linear layers' products and the small ops, 1 thread against T, as text (peer16-core.txt)
for t in ${PEER16_THREADS:-1 2 4 8 $all}; do OMP_NUM_THREADS=$t timeout 300 "$BC" linear; OMP_NUM_THREADS=$t timeout 300 "$BC" ops; done > "$(dirname "$out")/peer16-core.txt" 2>&1
# bench's own per-op times at 1 thread and at all (peer16-profile.txt): which ops scale
for t in 1 $all; do echo "== $t threads"; OMP_NUM_THREADS=$t timeout 120 "$AZ" bench --model flash --seq-len 1024 --batch 8 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 5 --warmup 1 --profile 2>&1; done > "$(dirname "$out")/peer16-profile.txt"
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
def rate(impl, model, n, t):
    for r in rows:
        if r.get("impl", "").startswith(impl) and r.get("threads") == t and (r.get("model") or r.get("attn")) == model and (r.get("seq_len") or r.get("N")) == n:
            return r["steps_per_s"]
print("\nthreads  N     attnzoo flash  torch sdpa  ratio   attnzoo full  torch full  ratio")
for t in sorted({r["threads"] for r in rows if "steps_per_s" in r}):
    for n in (1024, 4096):
        a, b, c, d = rate("attnzoo", "flash", n, t), rate("torch", "sdpa", n, t), rate("attnzoo", "full", n, t), rate("torch", "full", n, t)
        if a and b:
            print(f"{t:>7} {n:>5} {a:>14.2f} {b:>11.2f} {a/b:>6.2f}x " + (f"{c:>13.2f} {d:>11.2f} {c/d:>6.2f}x" if c and d else ""))
PY
