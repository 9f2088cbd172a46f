# The issue-55 measurements on a 2-core AMD EPYC Zen 4 (AVX-512), 2026-12-04, idle but for this script
# (the background recall sweep stopped with SIGSTOP). OLD = build 1dbf285 (before), build = after.
# OUT=dir bash docs/bench/threads-zen4-2026-12-04/run.sh
cd "$(dirname "$0")/../../.." && mkdir -p "$OUT"
set -x
for t in 1 2; do OMP_NUM_THREADS=$t build/bench_core linear; OMP_NUM_THREADS=$t build/bench_core linear 4096 64 128; done > $OUT/linear.txt 2>&1
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive build/bench_core ops > $OUT/ops.txt 2>&1
for t in 2 1; do for m in flash full; do python3 bench/ab.py --rounds 5 --threads $t OLD/attnzoo build/attnzoo -- --model $m --seq-len 1024 --batch 8 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 5 > $OUT/ab_${m}_$t.txt 2>&1; done; done
python3 bench/ab.py --rounds 5 --threads 2 OLD/attnzoo build/attnzoo -- --model flash --seq-len 4096 --batch 2 --dim 128 --heads 4 --layers 2 --ffn 256 --steps 3 > $OUT/ab_flash4k_2.txt 2>&1
cd /tmp; for t in 2 1; do hyperfine -N --warmup 1 --runs 7 --export-json $OUT/train_$t.json "env OMP_NUM_THREADS=$t OLD/attnzoo train --task listops --model full --steps 150 --eval-every 150 --quiet --force --out /tmp/hf_o" "env OMP_NUM_THREADS=$t build/attnzoo train --task listops --model full --steps 150 --eval-every 150 --quiet --force --out /tmp/hf_n" > $OUT/train_$t.txt 2>&1; done
