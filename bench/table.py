#!/usr/bin/env python3
"""Markdown table from bench/variants.sh output: steps/s and peak memory per
model and sequence length, each relative to full attention in the same run,
and the linear-cost check tokens/s(longest) / tokens/s(shortest)."""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
lengths = sorted({r["seq_len"] for r in rows})
by = {(r["model"], r["seq_len"]): r for r in rows}
models = sorted({r["model"] for r in rows}, key=lambda m: (m != "full", m))
head = "| model | " + " | ".join(f"steps/s {n} (vs full)" for n in lengths) + " | " + \
       " | ".join(f"peak MB {n} (vs full)" for n in lengths) + f" | tok/s {lengths[-1]} / {lengths[0]} |"
print(head)
print("|" + "---|" * (2 * len(lengths) + 2))
for m in models:
    cells, mems = [], []
    for n in lengths:
        r, f = by.get((m, n)), by.get(("full", n))
        if not r or "error" in r:
            cells.append("—" if not r else "error")
            mems.append("—")
            continue
        ok = f and "error" not in f
        cells.append(f"{r['steps_per_s']:.3f}" + (f" ({r['steps_per_s'] / f['steps_per_s']:.1f}x)" if ok else ""))
        mems.append(f"{r['peak_rss_mb']:.0f}" + (f" ({r['peak_rss_mb'] / f['peak_rss_mb']:.2f}x)" if ok else ""))
    a, b = by.get((m, lengths[0])), by.get((m, lengths[-1]))
    lin = f"{b['tokens_per_s'] / a['tokens_per_s']:.2f}" if a and b and "error" not in a and "error" not in b else "—"
    print(f"| {m} | " + " | ".join(cells) + " | " + " | ".join(mems) + f" | {lin} |")
