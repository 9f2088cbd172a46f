#!/usr/bin/env python3
"""Two or more builds of attnzoo, or settings of one flag, on one `attnzoo bench`
configuration, alternated.

    bench/ab.py [--rounds 5] [--threads 2] [--vary FLAG=V1,V2,...] BIN [BIN ...] -- BENCH_FLAGS...
    bench/ab.py build-old/attnzoo build/attnzoo -- --model full --seq-len 1024 --steps 6
    bench/ab.py --vary model=flash,full build/attnzoo -- --seq-len 4096 --batch 1 --steps 3

The arms are every binary with every value of --vary (one binary and two values compares
two models, or two tile sizes, on one build).  Why not hyperfine: it runs all of one
command's repetitions before the next command's, so a machine that slows down for a
minute (another tenant, a frequency change) slows one arm only; here every round runs
every arm once.  Use hyperfine for whole-command timings (docs/bench/*/run.sh).

This machine's run-to-run noise (about +-10% between identical runs) is larger than
most changes worth measuring, so a comparison is only honest when the builds run
alternately in one sitting on an idle machine and their medians are compared: round r
runs every build once, in an order rotated by r so that none is always first. Prints
each run, then per build the median steps/s, ms per step and peak memory, and the
ratio of each median to the first build's, with the CPU, SIMD level and OpenBLAS
kernels they ran on, and a warning when the builds ran on different OpenBLAS kernels
(a build older than its re-exec on unknown CPUs needs OPENBLAS_CORETYPE set, e.g.
SkylakeX, or it measures OpenBLAS's SSE3 fallback).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run_one(binary, flags, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))
    p = subprocess.run([binary, "bench"] + flags, env=env, capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        err = (p.stderr.strip().splitlines() or ["no output"])[-1]
        sys.exit(f"ab.py: {binary} bench {' '.join(flags)} failed (exit {p.returncode}): {err}")
    return json.loads(lines[-1])


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("ab.py: expected BIN_A BIN_B ... -- BENCH_FLAGS (see the opening comment)")
    cut = argv.index("--")
    ap = argparse.ArgumentParser(prog="bench/ab.py")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--vary", default="", help="FLAG=V1,V2,...: one arm per value, e.g. model=flash,full")
    ap.add_argument("binaries", nargs="+")
    a = ap.parse_args(argv[:cut])
    flags = argv[cut + 1:]
    values, vary = [None], ""
    if a.vary:
        vary, _, vals = a.vary.partition("=")
        values = [v for v in vals.split(",") if v]
        if not vary or not values:
            sys.exit(f"ab.py: --vary {a.vary}: expected FLAG=V1,V2,... (e.g. model=flash,full)")
    arms = [(b, v) for b in a.binaries for v in values]
    if len(arms) < 2:
        sys.exit("ab.py: give at least two binaries, or --vary with two values, to compare")
    if a.rounds < 1:
        sys.exit(f"ab.py: --rounds {a.rounds} is out of range (expected 1 or more)")
    for b in a.binaries:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            sys.exit(f"ab.py: {b} is not an executable file")
    def label(arm):
        b, v = arm
        return b if v is None else f"{b} --{vary} {v}"

    def arm_flags(arm):
        return flags if arm[1] is None else flags + ["--" + vary, arm[1]]

    names = [label(x) for x in arms]
    runs = {x: [] for x in names}
    n = len(arms)
    for r in range(a.rounds):
        for i in range(n):
            arm = arms[(i + r) % n]
            rec = run_one(arm[0], arm_flags(arm), a.threads)
            runs[label(arm)].append(rec)
            print(f"round {r + 1} {label(arm)}: {rec['steps_per_s']:.3f} steps/s, {rec['ms_per_step']:.1f} ms/step, "
                  f"{rec['peak_rss_mb']:.0f} MB", flush=True)
    cores = {b: runs[b][0].get("blas_core", "?") for b in names}
    if len(set(cores.values())) > 1:
        print("warning: the builds ran on different OpenBLAS kernels: " +
              ", ".join(f"{b} {c}" for b, c in cores.items()) + " (set OPENBLAS_CORETYPE)")
    first = runs[names[0]][0]
    named = [x["cpu"] for b in names for x in runs[b][:1] if "cpu" in x]  # builds since c8bd684 name it
    cpu = named[0] if named else "CPU not named by these builds (see /proc/cpuinfo)"
    print(f"\n{cpu}, SIMD {first.get('simd', '?')}, OpenBLAS {first.get('blas_core', '?')}, "
          f"{a.threads} thread{'s' if a.threads > 1 else ''}, medians of {a.rounds} rounds: bench {' '.join(flags)}")
    base = statistics.median(x["steps_per_s"] for x in runs[names[0]])
    for b in names:
        sps = statistics.median(x["steps_per_s"] for x in runs[b])
        ms = statistics.median(x["ms_per_step"] for x in runs[b])
        mb = statistics.median(x["peak_rss_mb"] for x in runs[b])
        lo, hi = min(x["steps_per_s"] for x in runs[b]), max(x["steps_per_s"] for x in runs[b])
        mfu = [x["mfu"] for x in runs[b] if "mfu" in x]
        mfu_s = f", mfu {statistics.median(mfu):.2f} (range {min(mfu):.2f}-{max(mfu):.2f})" if mfu else ""
        print(f"{b}: {sps:.3f} steps/s (range {lo:.3f}-{hi:.3f}), {ms:.1f} ms/step, {mb:.0f} MB{mfu_s}, "
              f"{sps / base:.3f}x the first")


if __name__ == "__main__":
    main()
