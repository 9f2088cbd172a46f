#!/bin/bash
# The idle window: every other job stopped (SIGSTOP) before this runs.
cd "$(dirname "$0")/../../.." && OUT=${OUT:-/tmp/idle} && mkdir -p "$OUT"
B=build/attnzoo
lscpu | grep -E "Model name|^CPU\(s\)" 
date -u
echo "== pathfinder generation speed"
$B data pathfinder --speed --n 20000
echo "== flash vs full, 4096 tokens, dim 128, 4 heads (head dim 32), 2 layers, 2 threads: native (AVX-512)"
hyperfine -N --warmup 1 --runs 6 --export-json "$OUT/native.json" -L model flash,full \
  "env OMP_NUM_THREADS=2 $B bench --model {model} --seq-len 4096 --batch 1 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 3 --warmup 1"
echo "== the same on the AVX2 path (ATTNZOO_SIMD=AVX2 LIBXSMM_TARGET=hsw OPENBLAS_CORETYPE=Haswell)"
hyperfine -N --warmup 1 --runs 6 --export-json "$OUT/avx2.json" -L model flash,full \
  "env OMP_NUM_THREADS=2 ATTNZOO_SIMD=AVX2 LIBXSMM_TARGET=hsw OPENBLAS_CORETYPE=Haswell $B bench --model {model} --seq-len 4096 --batch 1 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 3 --warmup 1"
echo "== the reference configuration, bench's own figures, 3 runs each alternated"
for r in 1 2 3; do for m in flash full; do for isa in native avx2; do
  if [ $isa = avx2 ]; then E="ATTNZOO_SIMD=AVX2 LIBXSMM_TARGET=hsw OPENBLAS_CORETYPE=Haswell"; else E=""; fi
  env OMP_NUM_THREADS=2 $E $B bench --model $m --seq-len 1024 --batch 8 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 5 --warmup 1 | tail -1 | sed "s/^/$isa /"
done; done; done
echo "== mini20 bench cells"
$B lra --preset mini --bench-only --threads 1 --out runs/lra-mini20 2>&1 | tail -3
date -u
