# PyTorch reference for the MQAR recipe (docs/recall/README.md; a diagnostic, not part of the build):
#   /usr/bin/python3 bench/mqar_pytorch.py --steps 2000 [--conv 3]   (Debian python3-torch, python3-numpy)
# Same data law as data/recall/mqar.cpp (keys lower half, values upper half, power-law query
# slots, filler never one of the example's keys/values, target at the query position) and the
# same model as train/model.cpp: token embedding + learned positions (N(0, 0.02)), pre-LN blocks
# (attention, GELU FFN), final LN, linear head; AdamW (0.9, 0.98, 1e-9), weight decay 0.01,
# clip 1.0, linear warm-up then constant rate.
import argparse, math, sys, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--T", type=int, default=64); p.add_argument("--N", type=int, default=4)
p.add_argument("--V", type=int, default=512); p.add_argument("--n-train", type=int, default=20000)
p.add_argument("--dim", type=int, default=64); p.add_argument("--heads", type=int, default=4)
p.add_argument("--layers", type=int, default=2); p.add_argument("--ffn", type=int, default=128)
p.add_argument("--lr", type=float, default=3e-3); p.add_argument("--wd", type=float, default=0.01)
p.add_argument("--steps", type=int, default=3000); p.add_argument("--batch", type=int, default=32)
p.add_argument("--warmup", type=int, default=100); p.add_argument("--eval-every", type=int, default=250)
p.add_argument("--seed", type=int, default=1); p.add_argument("--init", default="0.02")
p.add_argument("--causal", action="store_true"); p.add_argument("--conv", type=int, default=0)
a = p.parse_args()
torch.manual_seed(a.seed); torch.set_num_threads(1)

def make(n, rng):
    T, N, V = a.T, a.N, a.V
    fv = 1 + (V - 1) // 2
    slots = (T - 2 * N) // 2
    w0 = np.arange(1, slots + 1, dtype=np.float64) ** (0.01 - 1)
    X = np.zeros((n, T), np.int64); Y = np.full((n, T), -100, np.int64)
    for e in range(n):
        keys = rng.choice(np.arange(1, fv), N, replace=False)
        vals = rng.choice(np.arange(fv, V), N, replace=False)
        X[e, 0:2 * N:2] = keys; X[e, 1:2 * N:2] = vals
        qs = rng.choice(slots, N, replace=False, p=w0 / w0.sum())
        used = set(keys.tolist()) | set(vals.tolist())
        others = np.array([i for i in range(1, V) if i not in used])
        X[e, 2 * N:] = rng.choice(others, T - 2 * N)
        for k, s in enumerate(qs):
            X[e, 2 * N + 2 * s] = keys[k]; Y[e, 2 * N + 2 * s] = vals[k]
    return torch.tensor(X), torch.tensor(Y)

rng = np.random.default_rng(1)
Xtr, Ytr = make(a.n_train, rng); Xva, Yva = make(200, rng)

class Block(nn.Module):
    def __init__(s):
        super().__init__()
        s.ln1 = nn.LayerNorm(a.dim); s.ln2 = nn.LayerNorm(a.dim)
        s.qkv = nn.Linear(a.dim, 3 * a.dim); s.o = nn.Linear(a.dim, a.dim)
        s.f1 = nn.Linear(a.dim, a.ffn); s.f2 = nn.Linear(a.ffn, a.dim)
        if a.conv: s.cw = nn.Parameter(torch.randn(a.dim, 1, a.conv) * 0.1); s.lnc = nn.LayerNorm(a.dim)
    def forward(s, x):
        B, T, D = x.shape; H = a.heads
        if a.conv:  # depthwise causal short convolution, residual (Zoology's BaseConv slot, simplified)
            u = s.lnc(x).transpose(1, 2)
            x = x + F.conv1d(F.pad(u, (a.conv - 1, 0)), s.cw, groups=D).transpose(1, 2)
        q, k, v = s.qkv(s.ln1(x)).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(D // H)
        if a.causal: att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), -1e9)
        h = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
        x = x + s.o(h)
        return x + s.f2(F.gelu(s.f1(s.ln2(x))))

class Model(nn.Module):
    def __init__(s):
        super().__init__()
        s.emb = nn.Embedding(a.V, a.dim); s.pos = nn.Parameter(torch.zeros(a.T, a.dim))
        if a.init != "default": nn.init.normal_(s.emb.weight, 0, float(a.init))
        nn.init.normal_(s.pos, 0, 0.02 if a.init == "default" else float(a.init))
        s.blocks = nn.ModuleList([Block() for _ in range(a.layers)])
        s.ln = nn.LayerNorm(a.dim); s.head = nn.Linear(a.dim, a.V)
    def forward(s, x):
        h = s.emb(x) + s.pos
        for b in s.blocks: h = b(h)
        return s.head(s.ln(h))

m = Model()
opt = torch.optim.AdamW(m.parameters(), lr=a.lr, betas=(0.9, 0.98), eps=1e-9, weight_decay=a.wd)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / a.warmup))
t0 = time.process_time()
perm = torch.randperm(a.n_train); at = 0
for step in range(1, a.steps + 1):
    if at + a.batch > a.n_train: perm = torch.randperm(a.n_train); at = 0
    idx = perm[at:at + a.batch]; at += a.batch
    logits = m(Xtr[idx]); loss = F.cross_entropy(logits.reshape(-1, a.V), Ytr[idx].reshape(-1))
    opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(m.parameters(), 1.0); opt.step(); sched.step()
    if step % a.eval_every == 0:
        with torch.no_grad():
            lv = m(Xva); mask = Yva != -100
            acc = (lv.argmax(-1)[mask] == Yva[mask]).float().mean().item()
        print(f"step {step} loss {loss.item():.3f} val acc {acc:.3f} cpu {time.process_time() - t0:.0f}s", flush=True)
