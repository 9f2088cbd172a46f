# The committed runs of LRA's recipes (bench/TASK_lra.sh): a run's records live in docs/TASK-lra/MODEL/,
# so a long run outlives the machine it ran on.  Sourced (bash); each function names its script in
# its messages (the first argument).  train/lab/lra_report.cpp reads config.json, metrics.jsonl and
# test.txt there for the full preset's table; test.txt is the cell, so it is kept only beside the
# best.ckpt it was measured on.
#
# bench/pathfinder_lra.sh does both of these inline (its publish and its fresh-machine start).

# lra_go_on_from_saved NAME OUT SAVED: where OUT holds no last.ckpt and SAVED does, copy the committed
# run into OUT (one line on stderr says so), so the caller's resume goes on from it.
lra_go_on_from_saved() {
  local name=$1 out=$2 saved=$3
  if [ ! -f "$out/last.ckpt" ] && [ -f "$saved/last.ckpt" ]; then
    echo "$name: $out has no last.ckpt; copying the committed run from $saved/ to go on from it" >&2
    mkdir -p "$out" && cp "$saved"/* "$out"/
  fi
}

# lra_publish_records NAME OUT SAVED: copy the run in OUT (plotted, with a last.ckpt) into SAVED: config.json, metrics.jsonl,
# last.ckpt, the curve (curves.{gp,png,svg}), best.ckpt where OUT has one, and test.txt where it
# names that best.ckpt's sha1 (bench/TASK_lra.sh's `test` writes it so).  What SAVED held of an
# earlier publish and OUT lacks now (a best.ckpt, a test.txt of another checkpoint) is removed, so
# the table never reads a test accuracy beside records it was not measured on.  Publishing a
# folder onto itself copies nothing and keeps the same rule.
lra_publish_records() {
  local name=$1 out=$2 saved=$3 f sha
  if [ "$(realpath "$out")" != "$(realpath -m "$saved")" ]; then
    mkdir -p "$saved" && cp "$out"/{config.json,metrics.jsonl,last.ckpt,curves.gp,curves.png,curves.svg} "$saved"/
    for f in best.ckpt test.txt; do
      if [ -f "$out/$f" ]; then cp "$out/$f" "$saved"/; else rm -f "$saved/$f"; fi
    done
  fi
  [ -f "$saved/test.txt" ] || { echo "$name: no test.txt in $out yet: $saved/ has no test accuracy (its \`test\` mode writes one)" >&2; return 0; }
  sha=none
  if [ -f "$saved/best.ckpt" ]; then sha=$(sha1sum "$saved/best.ckpt" | cut -d' ' -f1); fi
  if ! grep -qx "best.ckpt sha1 $sha" "$saved/test.txt"; then
    rm "$saved/test.txt"
    echo "$name: $out/test.txt names another best.ckpt than this one: not published (its \`test\` mode measures this one)" >&2
  fi
}
