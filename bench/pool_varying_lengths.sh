#!/bin/bash
# Speed and memory of a run whose batches vary in length, two builds alternated:
#   bench/pool_varying_lengths.sh OLD_ATTNZOO NEW_ATTNZOO LISTOPS_DATA_DIR [ROUNDS]
# LISTOPS_DATA_DIR: the full preset's ListOps (e.g. runs/lra-full/data/listops, written by
# `attnzoo lra --preset full`). Each run: full attention, 2000 tokens, batch 8, 16 steps, one
# thread, no evaluation; prints the trainer's clock at step 16 and the maximum resident set.
# Run it on an idle machine and compare medians.
set -e
old=${1:?old attnzoo binary}; new=${2:?new attnzoo binary}; data=${3:?ListOps data folder}; rounds=${4:-3}
work=$(mktemp -d /tmp/az_poolab_XXXXXX); trap 'rm -rf "$work"' EXIT
for round in $(seq 1 "$rounds"); do
  for b in old new; do
    bin=$old; [ $b = new ] && bin=$new
    OMP_NUM_THREADS=1 /usr/bin/time -v "$bin" train --task listops --data "$data" --model full --seq-len 2000 \
      --dim 64 --heads 4 --layers 2 --ffn 128 --steps 16 --stop-after 16 --batch 8 --eval-every 1000 \
      --eval-limit 8 --log-every 16 --out "$work/$b" --force --quiet > "$work/out" 2> "$work/err"
    ts=$(python3 -c "import json,sys;print('%.1f' % [json.loads(l) for l in open(sys.argv[1])][-1]['elapsed'])" "$work/$b/metrics.jsonl")
    echo "round $round $b: ${ts} s for 16 steps, max RSS $(awk '/Maximum resident/ {printf "%.2f GB", $6/1048576}' "$work/err")"
  done
done
