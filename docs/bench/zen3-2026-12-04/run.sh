#!/bin/bash
# Issue 45's figures on a real AVX2 machine, in one idle sitting (every other job
# stopped with SIGSTOP before this runs).  Needs a built tree and `make bench-deps`.
# Medians of alternated rounds (bench/ab.py: every round runs every arm once).
cd "$(dirname "$0")/../../.." && OUT=${OUT:-/tmp/zen3} && mkdir -p "$OUT"
B=build/attnzoo
AB="python3 bench/ab.py --rounds ${ROUNDS:-5}"
lscpu | grep -E "Model name|^CPU\(s\)|^CPU family|^Model:"
date -u
echo "== flash vs full, 4,096 tokens, dim 128, 4 heads (head dim 32), 2 layers, batch 1"
$AB --vary model=flash,full $B -- --seq-len 4096 --batch 1 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 3 --warmup 1
echo "== flash vs full, 2,000 tokens, dim 64, 4 heads (head dim 16), 2 layers, batch 32"
python3 bench/ab.py --rounds 3 --vary model=flash,full $B -- --seq-len 2000 --batch 32 --dim 64 --heads 4 --layers 2 --ffn 128 --steps 2 --warmup 1
echo "== the reference configuration: flash and full, mfu"
$AB --vary model=flash,full $B -- --seq-len 1024 --batch 8 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 5 --warmup 1
echo "== whole process, 4,096 tokens (hyperfine: warm-up, medians, JSON)"
hyperfine -N --style basic --warmup 1 --runs 5 --export-json "$OUT/flash-full-4k.json" -L model flash,full \
  "env OMP_NUM_THREADS=2 $B bench --model {model} --seq-len 4096 --batch 1 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 3 --warmup 1"
echo "== PyTorch 1.13 eager on the same OpenBLAS"
/usr/bin/python3 bench/compare_pytorch.py --model full --seq-len 1024 --batch 8 --steps 5
/usr/bin/python3 bench/compare_pytorch.py --model performer,linear,local,linformer --seq-len 4096 --batch 2 --steps 5
date -u
