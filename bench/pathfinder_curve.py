#!/usr/bin/env python3
"""The learning curve of a Pathfinder run (issue 68): accuracy and loss against images seen, log x.

  python3 bench/pathfinder_curve.py RUN_DIR OUT_PREFIX [BATCH]

Reads RUN_DIR/metrics.jsonl (attnzoo train's), writes OUT_PREFIX.tsv (step, images seen, training
loss and accuracy of the window, validation loss and accuracy) and OUT_PREFIX.png through gnuplot,
with the markers' kNN (67%) and chance drawn as lines.  Images seen = step x BATCH (default 512).
"""
import json
import subprocess
import sys


def main():
    run, out = sys.argv[1], sys.argv[2]
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 512
    train, val = {}, {}
    for line in open(run + "/metrics.jsonl"):
        m = json.loads(line)
        if "step" not in m:
            continue
        if "val_acc" in m:
            val[m["step"]] = (m["val_loss"], m["val_acc"])
        elif "loss" in m:
            train[m["step"]] = (m["loss"], m["train_acc"])
    steps = sorted(set(train) | set(val))
    with open(out + ".tsv", "w") as f:
        f.write("# step\timages\ttrain_loss\ttrain_acc\tval_loss\tval_acc\n")
        for s in steps:
            t, v = train.get(s, ("", "")), val.get(s, ("", ""))
            f.write("\t".join(str(x) for x in (s, s * batch, *t, *v)) + "\n")
    gp = f"""set terminal pngcairo size 900,420 font ',10'
set output '{out}.png'
set multiplot layout 1,2 title 'Pathfinder-32, 14 dashes, 4x4 patches, LRA recipe: {run.rstrip("/").split("/")[-1]}'
set logscale x
set xlabel 'images seen'
set key bottom right
set datafile missing ''
set datafile separator '\\t'
set ylabel 'accuracy'
set yrange [0.45:0.8]
plot '{out}.tsv' using 2:4 with lines title 'train (window mean)', '' using 2:6 with linespoints pt 7 ps 0.5 title 'validation', \\
     0.67 with lines dt 2 lc rgb 'black' title 'markers kNN 67%', 0.5 with lines dt 3 lc rgb 'gray' title 'chance'
set ylabel 'loss (nats)'
set yrange [*:*]
plot '{out}.tsv' using 2:3 with lines title 'train (window mean)', '' using 2:5 with linespoints pt 7 ps 0.5 title 'validation', \\
     log(2) with lines dt 3 lc rgb 'gray' title 'ln 2'
unset multiplot
"""
    subprocess.run(["gnuplot"], input=gp, text=True, check=True)


if __name__ == "__main__":
    main()
