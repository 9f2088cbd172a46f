#!/usr/bin/env bash
# LRA's Pathfinder-32 recipe on 4x4 patches (issue 68), resumable, at a low priority beside other work.
#
#   bash bench/pathfinder_lra.sh MODEL [OUT] [STOP_AFTER|args|test|plot|rows|publish]
#   bash bench/pathfinder_lra.sh compare|summary
#       MODEL       full, local, linear or performer (default full), each with its LRA config, or
#                   full-2x2: full attention's config on 2x2 patches (256 tokens of 4 pixels)
#       OUT         the run's folder (default runs/pf-lra-MODEL); a rerun resumes from OUT/last.ckpt,
#                   or, where OUT has none, from the run committed in docs/pathfinder-lra/MODEL/
#       STOP_AFTER  stop (saving last.ckpt) after this step; the next call goes on from there;
#                   or `args`: print a fresh run's command line; or `test`: evaluate OUT/best.ckpt on
#                   the test split into OUT/test.txt (the checkpoint's sha1 and eval's line, which
#                   docs/pathfinder-lra.md quotes); or `plot`:
#                   the learning curve, OUT/curves.{png,svg,gp} (accuracy and loss against images seen,
#                   log x, the markers' kNN and chance drawn across); or `rows`: the run's table for
#                   docs/pathfinder-lra.md (validation at epochs 1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45,
#                   64, 91, 128, 181 and 200, about a factor sqrt 2 apart, with the first at 55% or
#                   more (where it leaves chance), the best and the last)
#                   or `publish`: test (where best.ckpt changed since test.txt) and plot OUT, copy its
#                   records into docs/pathfinder-lra/MODEL/, and write the three tables into
#                   docs/pathfinder-lra.md (under `### MODEL`, which must exist) and docs/lra.md;
#                   the prose around them is left to you, and test_docs names what is stale
#       summary     every committed run's images seen, best validation, test accuracy and CPU-hours:
#                   the row set of docs/lra.md
#       compare     validation accuracy of every committed run (docs/pathfinder-lra/*/) at equal
#                   images seen: the cross-model table of docs/pathfinder-lra.md
#
# The recipe (lra_benchmarks/image/configs/pathfinder32/base_pathfinder32_config.py), flag by flag:
#   mean pooling, fixed sinusoidal positions         --pool mean --positions sinusoidal
#   batch 512, Adam, lr 1e-3, no weight decay        --batch 512 --lr 1e-3 --weight-decay 0
#   no gradient clipping                             --clip 0
#   one epoch of linear warm-up, then cosine decay   --warmup 313 --schedule cosine (160,000 / 512 = 312.5 steps)
#   200 epochs of 160,000 images                     --steps 62500
#   Pathfinder-32, 14 dashes, LRA's labelling        --task pathfinder --style lra --difficulty 14
#   160,000 / 20,000 / 20,000 images                 --n 200000 (split 80/10/10)
#   4x4 patches: 64 tokens of 16 pixels              --input patches --patch 4
# and each model's own file there (MODEL_base.py), which sets its size and dropout:
#   full (transformer_base)  1 layer, 4 heads, width 128, qkv 64, MLP 128, dropout 0.2
#                            --layers 1 --heads 4 --dim 128 --ffn 128 --dropout 0.2
#   local                    2 layers, 4 heads, width 64, qkv 32, MLP 64, dropout 0.1, block 64
#                            --layers 2 --heads 4 --dim 64 --ffn 64 --dropout 0.1 --window 2 --block 8
#   linear_transformer       1 layer, 2 heads, width 128, qkv 64, MLP 128, dropout 0.2
#                            --layers 1 --heads 2 --dim 128 --ffn 128 --dropout 0.2
#   performer                4 layers, 8 heads, width 32, qkv 16, MLP 32, dropout 0.2
#                            --layers 4 --heads 8 --dim 32 --ffn 32 --dropout 0.2
# Where ours differs (docs/pathfinder-lra.md says more):
#   - LRA's qkv width is half its model width; ours is the model width (--dim sets both).
#   - LRA's attention-weight dropout of 0.1 is left out (--attn-dropout 0): linear and performer form
#     no attention weights to drop, and the full run began without it.
#   - LRA feeds pixels (1,024 tokens); 4x4 patches are the issue's CPU budget (64 tokens).
#   - local: a window of 2 on each side (5 of 64 tokens, 80 pixels), the nearest to LRA's block of
#     64 pixels.  LRA's reshape makes its block every 17th pixel across the image, not a local run.
#   - performer: FAVOR+ with the default d ln d features (5 per head of 4).  LRA's Performer, with
#     its default attention_fn_cls, is ReLU-kernel attention (relu(x) + 0.001) without random features.
#   - Validation every epoch (313 steps) on 20,000 images; the best validation's checkpoint is
#     tested, as LRA's protocol should have been.
set -euo pipefail
MODEL=${1:-full}
AZ=${AZ:-build/attnzoo}
# The records are metrics.jsonl, one flat JSON object a line; field("val_acc") reads one of the
# current line's fields in awk ("" where it has none).
FIELD='function field(k,  i) { for (i = 2; i < NF; i++) if ($i == "\"" k "\"") return $(i+1); return "" }'
RUNS="full local linear performer full-2x2"
# The row set of docs/lra.md: per committed run, the images seen (and epochs), the best validation
# accuracy (%) and where, the test accuracy (%) of that checkpoint (test.txt), and the CPU-hours.
if [ "$MODEL" = summary ]; then
  echo "| model | images seen | best validation | test | CPU-hours |"
  echo "|---|---:|---:|---:|---:|"
  for m in $RUNS; do
    f=docs/pathfinder-lra/$m/metrics.jsonl
    [ -f "$f" ] || continue
    t=$(sed -n 's/^test accuracy \([0-9.]*\),.*/\1/p' "docs/pathfinder-lra/$m/test.txt" 2>/dev/null || true)
    awk -v m="$m" -v t="$t" -F'[,:{}]' "$FIELD"'
      { step = field("step"); acc = field("val_acc"); cpu = field("cpu_seconds")
        if (step + 0 > last) last = step
        if (cpu + 0 > cpus) cpus = cpu
        if (acc != "" && (n++ == 0 || acc + 0 > best + 0)) { best = acc; bs = step } }
      END { printf "| %s | %.2fM (%.1f epochs) | %.1f at %.2fM | %s | %.1f |\n", m, last * 512 / 1e6, last * 512 / 160000,
                   100 * best, bs * 512 / 1e6, (t == "" ? "not yet" : sprintf("%.1f", 100 * t)), cpus / 3600 }' "$f"
  done
  exit 0
fi
# Validation accuracy (%) of each committed run at equal images seen: the eval at epoch E, for
# E = 8, 16, 32, 64, 128 (step 313 E) and 200 (the last step, 62,500); blank where a run has not got there.
if [ "$MODEL" = compare ]; then
  echo "| model | 1.28M (8 epochs) | 2.56M (16) | 5.12M (32) | 10.24M (64) | 20.48M (128) | 32M (200) | images seen |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for m in $RUNS; do
    f=docs/pathfinder-lra/$m/metrics.jsonl
    [ -f "$f" ] || continue
    awk -v m="$m" -F'[,:{}]' "$FIELD"'
      { step = field("step"); acc = field("val_acc")
        if (step + 0 > last) last = step
        if (acc != "") at[step] = acc }
      END { printf "| %s |", m
            n = split("8 16 32 64 128 200", E, " ")
            for (k = 1; k <= n; k++) { s = (E[k] == 200 ? 62500 : E[k] * 313)
                                       printf (s in at) ? " %.1f |" : " |", 100 * at[s] }
            printf " %.2fM |\n", last * 512 / 1e6 }' "$f"
  done
  exit 0
fi
OUT=${2:-runs/pf-lra-$MODEL}
STOP=${3:-0}
PATCH=4 ARCH=$MODEL
[ "$MODEL" = full-2x2 ] && PATCH=2 ARCH=full
args=(train --task pathfinder --style lra --difficulty 14 --input patches --patch $PATCH --n 200000 --baselines 0
      --model "$ARCH" --pool mean --positions sinusoidal
      --batch 512 --lr 1e-3 --weight-decay 0 --clip 0 --warmup 313 --schedule cosine --steps 62500
      --eval-every 313 --log-every 313 --seed 1 --quiet --out "$OUT")
case "$MODEL" in
  full|full-2x2) args+=(--layers 1 --heads 4 --dim 128 --ffn 128 --dropout 0.2) ;;
  local)         args+=(--layers 2 --heads 4 --dim 64 --ffn 64 --dropout 0.1 --window 2 --block 8) ;;
  linear)        args+=(--layers 1 --heads 2 --dim 128 --ffn 128 --dropout 0.2) ;;
  performer)     args+=(--layers 4 --heads 8 --dim 32 --ffn 32 --dropout 0.2) ;;
  *) echo "pathfinder_lra: LRA's Pathfinder-32 configs name full, local, linear and performer (and full-2x2 for 2x2 patches); got '$MODEL'" >&2; exit 2 ;;
esac
if [ "$STOP" = args ]; then echo "$AZ ${args[*]}"; exit 0; fi  # a fresh run's command line
if [ "$STOP" = test ]; then
  { echo "best.ckpt sha1 $(sha1sum "$OUT/best.ckpt" | cut -d' ' -f1)"
    env OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$AZ" eval --ckpt "$OUT/best.ckpt" --split test; } > "$OUT/test.txt.tmp"
  mv "$OUT/test.txt.tmp" "$OUT/test.txt" && cat "$OUT/test.txt"
  exit 0
fi
if [ "$STOP" = plot ]; then
  exec "$AZ" plot --run "$OUT" --x examples --log-x --acc-range 0.45:0.8 --levels "0.67=markers' kNN (67%),0.5=chance"
fi
if [ "$STOP" = rows ]; then
  echo "| images seen | step | validation accuracy | validation loss |"
  echo "|---:|---:|---:|---:|"
  awk -F'[,:{}]' "$FIELD"'
    function commas(n,  s) { s = sprintf("%d", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); return s }
    { step = field("step"); acc = field("val_acc"); loss = field("val_loss")
      if (acc == "") next
      n++; S[n] = step; A[n] = acc; L[n] = loss
      if (acc + 0 > best + 0 || n == 1) { best = acc; bi = n }
      if (!left && acc + 0 >= 0.55) left = n }
    END { split("1 2 3 4 6 8 11 16 23 32 45 64 91 128 181 200", E, " ")
          for (i = 1; i <= n; i++) { e = S[i] / 313; keep = (i == bi || i == n || i == left || S[i] == 62500)
                                     for (k in E) if (e == E[k]) keep = 1
                                     if (!keep) continue
                                     a = sprintf("%.3f", A[i]); if (i == bi) a = "**" a "** (best)"
                                     printf "| %s | %s | %s | %.4f |\n", commas(S[i] * 512), commas(S[i]), a, L[i] } }' "$OUT/metrics.jsonl"
  exit 0
fi
# Replace the table (a run of lines starting with "|") that first follows the line matching $2 in $1
# with the output of the command in $3.
put_table() {
  local file=$1 after=$2 new
  new=$(bash "$0" "${@:3}") || return 1
  awk -v after="$after" -v new="$new" '
    !done && !armed && $0 ~ after { armed = 1 }
    armed && !done && /^\|/ { if (!intable) { print new; intable = 1 }; next }
    armed && intable && !/^\|/ { done = 1 }
    { print }
    END { if (!done && !intable) { print "pathfinder_lra: no table after /" after "/" > "/dev/stderr"; exit 1 } }' "$file" > "$file.tmp" &&
    mv "$file.tmp" "$file"
}
if [ "$STOP" = publish ]; then
  SAVED=docs/pathfinder-lra/$MODEL
  grep -q "^### $MODEL\$" docs/pathfinder-lra.md || { echo "pathfinder_lra: docs/pathfinder-lra.md has no section '### $MODEL'; write its prose first" >&2; exit 2; }
  if [ ! -f "$OUT/test.txt" ] || ! grep -q "$(sha1sum "$OUT/best.ckpt" | cut -d' ' -f1)" "$OUT/test.txt"; then bash "$0" "$MODEL" "$OUT" test; fi
  bash "$0" "$MODEL" "$OUT" plot
  if [ "$(realpath "$OUT")" != "$(realpath -m "$SAVED")" ]; then
    mkdir -p "$SAVED" && cp "$OUT"/{metrics.jsonl,last.ckpt,best.ckpt,config.json,test.txt,curves.gp,curves.png,curves.svg} "$SAVED"/
  fi
  put_table docs/pathfinder-lra.md "^### $MODEL\$" "$MODEL" "$SAVED" rows &&
    put_table docs/pathfinder-lra.md '^## The runs at equal images seen' compare &&
    put_table docs/lra.md 'Pathfinder-32, 4x4 patches, LRA' summary
  exit
fi
case "$STOP" in
  ''|*[!0-9]*) echo "pathfinder_lra: the third argument is a step to stop after, args, test, plot, rows or publish; got '$STOP'" >&2; exit 2 ;;
esac
# A fresh machine: the run goes on from the records committed under docs/pathfinder-lra/MODEL/.
SAVED=docs/pathfinder-lra/$MODEL
if [ ! -f "$OUT/last.ckpt" ] && [ -f "$SAVED/last.ckpt" ]; then
  echo "pathfinder_lra: $OUT has no last.ckpt; copying the committed run from $SAVED/ to go on from it" >&2
  mkdir -p "$OUT" && cp "$SAVED"/* "$OUT"/
fi
if [ -f "$OUT/last.ckpt" ]; then args=(train --resume "$OUT/last.ckpt" --steps 62500 --quiet); fi
[ "$STOP" -gt 0 ] && args+=(--stop-after "$STOP")
# Low priority: nice within this session, and the session's own weight too (under autogroups nice
# alone orders processes only inside one session: docs/lra.md).
echo 19 > /proc/self/autogroup 2>/dev/null || true
exec nice -n 19 env OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$AZ" "${args[@]}"
