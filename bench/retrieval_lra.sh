#!/usr/bin/env bash
# LRA's Retrieval (AAN matching) recipe on the JDK + cppreference corpus (issue 78), resumable, at a
# low priority beside other work.
#
#   bash bench/retrieval_lra.sh MODEL [OUT] [STOP_AFTER|args|test|plot|bench|publish]
#       MODEL       full, linear, performer, local or bigbird (default linear): LRA's matching configs
#                   (lra_benchmarks/matching/configs/MODEL_base.py) are all base_match_config.py
#                   with only the model type changed
#       OUT         the run's folder (default runs/retrieval-lra-MODEL); a rerun resumes from OUT/last.ckpt,
#                   or, where OUT has none, from the run committed in docs/retrieval-lra/MODEL/ (copied
#                   into OUT; one line says so)
#       STOP_AFTER  stop (saving last.ckpt) after this step; the next call goes on from there;
#                   or `args`: print a fresh run's command line; or `test`: evaluate OUT/best.ckpt on
#                   the test split into OUT/test.txt (the checkpoint's sha1 and eval's line); or `plot`:
#                   the learning curve, OUT/curves.{png,svg,gp}, chance and tf-idf drawn across; or
#                   `bench`: `attnzoo bench` at the model's training shape (2 sequences of 4,001 tokens,
#                   one thread) and the CPU-hours it projects for the 5,000 steps of 64 sequences; or
#                   `publish`: plot OUT and copy its records into docs/retrieval-lra/MODEL/ (config.json,
#                   metrics.jsonl, last.ckpt, the curve, best.ckpt, and test.txt where it names that
#                   best.ckpt: the full preset's table reads its Retrieval cell from there); it tests
#                   nothing (5,674 pairs, about as long as a validation: run `test` first where the cell should show)
#
# Stopping a run anywhere and going on in a later session: the script execs the trainer, so its
# process id is the trainer's.  A SIGTERM (or Ctrl-C) finishes the step under way (or the validation),
# saves OUT/last.ckpt and exits; publish, commit, and the next session's call resumes:
#   mkdir -p runs; bash bench/retrieval_lra.sh linear > runs/retrieval-lra-linear.log 2>&1 & echo $! > runs/retrieval-lra-linear.pid
#   kill $(cat runs/retrieval-lra-linear.pid); tail --pid=$(cat runs/retrieval-lra-linear.pid) -f /dev/null
#   bash bench/retrieval_lra.sh linear runs/retrieval-lra-linear publish
#   git add docs/retrieval-lra/linear && git commit -m "..." -- docs/retrieval-lra/linear
#   bash bench/retrieval_lra.sh linear     # later, on any machine: goes on from docs/retrieval-lra/linear/
# (A run started otherwise: its id is `pgrep -f 'attnzoo train.*retrieval-lra-linear'`.)  A SIGKILL
# loses the steps since the last validation's last.ckpt (every 500).
#
# The recipe (base_match_config.py), flag by flag:
#   batch 32 pairs, 5,000 steps                      --batch 32 --steps 5000
#   4 layers, emb 128, qkv 128, MLP 512, 4 heads     --layers 4 --dim 128 --ffn 512 --heads 4 (qkv = --dim)
#   CLS pooling                                      --pool cls (a CLS token before the 4,000 bytes)
#   one shared encoder, [u, v, u*v, u-v] into the classifier   --task retrieval (its pair head)
#   4,000 bytes per document, char tokenizer         --seq-len 4000 (bytes + 1; 0 pads)
#   Adam(0.9, 0.98, 1e-9), weight decay 0.1          --optimizer adamw --beta1 0.9 --beta2 0.98 --eps 1e-9
#                                                    --weight-decay 0.1 (flax's Adam decays as AdamW: lr * wd * w)
#   "constant * linear_warmup * rsqrt_decay", 0.05, 8,000 warm-up steps:
#       lr(s) = 0.05 * min(1, s/8000) / sqrt(max(s, 8000))
#                                                    --schedule rsqrt --warmup 8000 --lr 0.000559017
#       ours is lr * min(1, s/w) * sqrt(w / max(s, w)) (nn/optim.cpp), so --lr = 0.05 / sqrt(8000)
#       = 5.59017e-4, the same rate at every step; LRA's 5,000 steps end in the warm-up, at 3.49e-4
#   no gradient clipping (train.py clips nothing)    --clip 0
#   dropout 0.1, attention dropout 0.1 (the models' defaults; train.py passes none)
#                                                    --dropout 0.1 --attn-dropout 0.1
#   fixed sinusoidal positions (AddPositionEmbs without posemb_init)   --positions sinusoidal
#   local: block_size 50                             --window 50 (keys within 50 on each side)
#   bigbird: block_size 64, 3 random blocks          --block 64 --random-blocks 3
# Where ours differs:
#   - the corpus: Debian's JDK API pages and cppreference, not AAN (docs/retrieval-lra.md); its
#     splits are LRA's proportions, 10% of the documents each for validation and test;
#   - LRA's classifier_head_dual has two hidden layers (mlp_dim, mlp_dim/2); our pair head one;
#   - full: flash attention, the same exact softmax in tiles (memory linear in N);
#   - performer: FAVOR+ with d ln d features; LRA's Performer is ReLU-kernel attention;
#   - validation every 500 steps on the 5,192 validation pairs (LRA: every 100, on validation and test,
#     and it tests the last checkpoint); the best validation's checkpoint is tested (`test`).
set -euo pipefail
. "$(dirname "$0")/lra_records.sh"  # lra_go_on_from_saved, lra_publish_records
MODEL=${1:-linear}
AZ=${AZ:-build/attnzoo}
OUT=${2:-runs/retrieval-lra-$MODEL}
STOP=${3:-0}
ARCH=$MODEL
EXTRA=()
case "$MODEL" in
  full)      ARCH=flash ;;
  linear|performer) ;;
  local)     EXTRA=(--window 50) ;;
  bigbird)   EXTRA=(--block 64 --random-blocks 3) ;;
  *) echo "retrieval_lra: LRA's matching configs name full, linear, performer, local and bigbird; got '$MODEL'" >&2; exit 2 ;;
esac
SHAPE=(--layers 4 --dim 128 --heads 4 --ffn 512)
args=(train --task retrieval --corpus docs --seq-len 4000 --model "$ARCH" "${EXTRA[@]}" "${SHAPE[@]}"
      --pool cls --positions sinusoidal --dropout 0.1 --attn-dropout 0.1
      --batch 32 --steps 5000 --optimizer adamw --lr 0.000559017 --schedule rsqrt --warmup 8000
      --beta1 0.9 --beta2 0.98 --eps 1e-9 --weight-decay 0.1 --clip 0
      --eval-every 500 --log-every 100 --seed 1 --quiet --out "$OUT")
if [ "$STOP" = args ]; then echo "$AZ ${args[*]}"; exit 0; fi  # a fresh run's command line
if [ "$STOP" = bench ]; then
  # One thread, 2 sequences of 4,001 tokens (the CLS token and 4,000 bytes); a step of the recipe
  # encodes 64 (32 pairs), so it costs 32 of these.
  line=$(env OMP_NUM_THREADS=1 nice -n 19 "$AZ" bench --model "$ARCH" "${EXTRA[@]}" "${SHAPE[@]}" --seq-len 4001 \
         --batch 2 --steps 3 --warmup 1 | tail -1)
  echo "$line"
  ms=$(echo "$line" | sed -n 's/.*"ms_per_step": \([0-9.]*\).*/\1/p')
  awk -v m="$MODEL" -v ms="$ms" 'BEGIN { printf "%s: %.2f s a step of 32 pairs, %.1f CPU-hours for 5,000 steps (one thread, wall time of an idle core)\n", m, ms * 32 / 1000, ms * 32 * 5000 / 3.6e6 }'
  exit 0
fi
if [ "$STOP" = test ]; then
  { echo "best.ckpt sha1 $(sha1sum "$OUT/best.ckpt" | cut -d' ' -f1)"
    env OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$AZ" eval --ckpt "$OUT/best.ckpt" --split test; } > "$OUT/test.txt.tmp"
  mv "$OUT/test.txt.tmp" "$OUT/test.txt" && cat "$OUT/test.txt"
  exit 0
fi
if [ "$STOP" = plot ]; then
  exec "$AZ" plot --run "$OUT" --x examples --acc-range 0.45:0.7 --levels "0.656=tf-idf cosine (65.6%),0.5=chance"
fi
SAVED=docs/retrieval-lra/$MODEL  # the committed run, read by the full preset's table (train/lab/lra_report.cpp)
if [ "$STOP" = publish ]; then
  [ -f "$OUT/last.ckpt" ] || { echo "retrieval_lra: $OUT has no last.ckpt: no run to publish" >&2; exit 2; }
  bash "$0" "$MODEL" "$OUT" plot
  lra_publish_records retrieval_lra "$OUT" "$SAVED"
  exit
fi
case "$STOP" in
  ''|*[!0-9]*) echo "retrieval_lra: the third argument is a step to stop after, args, test, plot, bench or publish; got '$STOP'" >&2; exit 2 ;;
esac
# A fresh machine: the run goes on from the records committed under docs/retrieval-lra/MODEL/.
lra_go_on_from_saved retrieval_lra "$OUT" "$SAVED"
if [ -f "$OUT/last.ckpt" ]; then args=(train --resume "$OUT/last.ckpt" --steps 5000 --quiet); fi
[ "$STOP" -gt 0 ] && args+=(--stop-after "$STOP")
# Low priority: nice within this session, and the session's own weight too (under autogroups nice
# alone orders processes only inside one session: docs/lra.md).
echo 19 > /proc/self/autogroup 2>/dev/null || true
exec nice -n 19 env OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$AZ" "${args[@]}"
