#!/usr/bin/env bash
# Fast form against reference form (issue 54): speed and peak memory of every
# model's two forms at 1K and 4K tokens, one `attnzoo bench` process per cell,
# appended to a JSONL file that `attnzoo docs` reads for each model's page.
#
#   bench/impl.sh OUT.jsonl ["model1 model2 ..."] ["1024 4096"]
#
# The configuration is bench/variants.sh's: --batch 2 --dim 128 --heads 4
# --layers 2 --ffn 256, each model with its defaults; the two forms of a model
# run back to back at each length.
set -uo pipefail
out=${1:?usage: bench/impl.sh OUT.jsonl [models] [lengths]}
bin=${ATTNZOO_BIN:-build/attnzoo}
models=${2:-$($bin models | awk '/^[a-z]/ {print $1}')}
lengths=${3:-1024 4096}
for n in $lengths; do
  for m in $models; do
    for impl in fast reference; do
      line=$(timeout 900 "$bin" bench --model "$m" --seq-len "$n" --batch 2 --dim 128 --heads 4 --layers 2 --ffn 256 \
             --steps 2 --warmup 1 --impl $impl 2>/tmp/bench_err.txt | tail -n 1)
      if [ -z "$line" ]; then
        err=$(tail -n 1 /tmp/bench_err.txt | tr '"' "'")
        line="{\"model\": \"$m\", \"seq_len\": $n, \"impl\": \"$impl\", \"error\": \"${err:-timed out}\"}"
      fi
      echo "$line" | tee -a "$out"
    done
  done
done
