#!/usr/bin/env bash
# Speed and memory of every model at several sequence lengths, one
# `attnzoo bench` process per cell (so each peak memory is its own), appended
# to a JSONL file; bench/table.py turns it into the README's table.
#
#   bench/variants.sh OUT.jsonl ["model1 model2 ..."] ["1024 2048 4096 8192"]
#
# The configuration is the variant issues' one: --batch 2 --dim 128 --heads 4
# --layers 2 --ffn 256, each model with its defaults.  IMPLS="fast reference"
# runs each cell in both forms back to back (--impl; default: fast only), the
# records of the model pages' fast-against-reference tables (docs/bench/impl.jsonl):
#   OMP_NUM_THREADS=1 IMPLS="fast reference" bench/variants.sh docs/bench/impl.jsonl "" "1024 4096"
set -uo pipefail
out=${1:?usage: bench/variants.sh OUT.jsonl [models] [lengths]}
bin=${ATTNZOO_BIN:-build/attnzoo}
models=${2:-$($bin models | awk '/^[a-z]/ {print $1}')}
lengths=${3:-1024 2048 4096 8192}
impls=${IMPLS:-fast}
for n in $lengths; do
  for m in $models; do
    for impl in $impls; do
      steps=3; [ "$n" -ge 4096 ] && steps=2
      line=$(timeout 900 "$bin" bench --model "$m" --seq-len "$n" --batch 2 --dim 128 --heads 4 --layers 2 --ffn 256 \
             --steps $steps --warmup 1 --impl "$impl" 2>/tmp/bench_err.txt | tail -n 1)
      if [ -z "$line" ]; then
        err=$(tail -n 1 /tmp/bench_err.txt | tr '"' "'")
        line="{\"model\": \"$m\", \"seq_len\": $n, \"impl\": \"$impl\", \"error\": \"${err:-timed out}\"}"
      fi
      echo "$line" | tee -a "$out"
    done
  done
done
