# Projected CPU cost per cell of `attnzoo lra --preset full`: each (task, model)'s
# training shape benched on one thread (attnzoo bench, 1 warm-up + 3 timed steps),
# times the preset's step budget.  Retrieval encodes two documents per example: batch x 2.
import json, subprocess, sys, re, os
B = 'build/attnzoo'
out = open('docs/lra/full-projection/bench.jsonl', 'a')
done = set()
try:
    for l in open('docs/lra/full-projection/bench.jsonl'):
        r = json.loads(l); done.add((r['task'], r['model']))
except Exception: pass
dry = subprocess.run([B, 'lra', '--preset', 'full', '--dry-run', '--seeds', '1', '--no-bench', '--out', '/tmp/lrafull',
                      '--models', 'full,local,bigbird,linformer,performer,linear,reformer,sinkhorn,mixer'],
                     capture_output=True, text=True).stdout
for line in dry.splitlines():
    if 'attnzoo train' not in line: continue
    a = line.split()
    def val(f): return a[a.index(f) + 1]
    task, model = val('--task'), val('--model')
    if (task, model) in done: continue
    batch = int(val('--batch')) * (2 if task == 'retrieval' else 1)
    cmd = [B, 'bench', '--model', model, '--seq-len', val('--seq-len'), '--batch', str(batch), '--dim', val('--dim'),
           '--heads', val('--heads'), '--layers', val('--layers'), '--ffn', val('--ffn'), '--steps', '3', '--warmup', '1']
    env = dict(os.environ, OMP_NUM_THREADS='1')
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    try:
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except Exception:
        r = {'error': (p.stderr or p.stdout)[-300:]}
    r.update(task=task, model=model, steps=int(val('--steps')), cmd=' '.join(cmd[1:]))
    out.write(json.dumps(r) + '\n'); out.flush()
    print(task, model, r.get('ms_per_step'), r.get('peak_rss_mb'), flush=True)
