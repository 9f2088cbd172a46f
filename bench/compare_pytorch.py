#!/usr/bin/python3
"""Attention Zoo against PyTorch eager on the same CPU, side by side.

Builds the same encoder classifier as `attnzoo bench` in PyTorch (token
embedding 257 x D, learned positions, L pre-norm blocks of attention and a
GELU feed-forward, final layer norm, mean pooling, linear head; AdamW with
LRA's betas, gradient clipping at 1), trains it on the same random tokens,
and prints the steps/s of both and their ratio.  Optional for users: needs
Debian's python3-torch (apt-get install python3-torch); the project does not.

  /usr/bin/python3 bench/compare_pytorch.py --model full --seq-len 1024 --batch 8
  /usr/bin/python3 bench/compare_pytorch.py --model local,linformer,performer,linear --seq-len 4096 --batch 2

Attention variants follow the project's defaults: local (window 64 each
side, blocks of 64), linformer (k = 256, one E and F for all heads),
performer (FAVOR+, m = d ln d positive orthogonal features, fixed), linear
(elu + 1).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    sys.exit("compare_pytorch.py needs PyTorch: apt-get install python3-torch, then run it with /usr/bin/python3")

# OpenBLAS 0.3.21 does not know newer CPUs (Sapphire Rapids) and falls back to
# its Prescott (SSE3) kernels; attnzoo then runs itself with OPENBLAS_CORETYPE
# set (train/lab/bench.cpp), so PyTorch, on the same OpenBLAS, must get the same
# kernels, or it runs at half its rate (measured: local at 4K, 1.14 against
# 2.25-2.51 steps/s).  The same rule as attnzoo's; an explicit value wins.
if "OPENBLAS_CORETYPE" not in os.environ:
    import ctypes
    try:
        blas = ctypes.CDLL("libopenblas.so.0")
        blas.openblas_get_corename.restype = ctypes.c_char_p
        corename = blas.openblas_get_corename().decode()
    except (OSError, AttributeError):
        corename = ""
    flags = open("/proc/cpuinfo").read().split()
    want = "SkylakeX" if "avx512f" in flags else "Haswell" if "avx2" in flags else None
    if corename.lower() == "prescott" and want:
        print(f"note: OpenBLAS chose its Prescott kernels; running again with OPENBLAS_CORETYPE={want}", file=sys.stderr)
        os.environ["OPENBLAS_CORETYPE"] = want
        os.execv(sys.executable, [sys.executable] + sys.argv)


class Attention(nn.Module):
    def __init__(self, kind, dim, heads, max_len, generator):
        super().__init__()
        self.kind, self.h, self.d = kind, heads, dim // heads
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim) for _ in range(4))
        if kind == "linformer":
            k = min(256, max_len)
            self.E = nn.Parameter(torch.randn(k, max_len) / math.sqrt(k))
            self.F = nn.Parameter(torch.randn(k, max_len) / math.sqrt(k))
        if kind == "performer":
            m = max(1, int(self.d * math.log(self.d)))
            blocks = []
            for _ in range((m + self.d - 1) // self.d):
                q, _ = torch.linalg.qr(torch.randn(self.d, self.d, generator=generator))
                blocks.append(q.T)
            w = torch.cat(blocks)[:m]
            norms = torch.randn(m, self.d, generator=generator).norm(dim=1, keepdim=True)
            self.register_buffer("W", w * norms)

    def forward(self, x):
        B, N, D = x.shape
        split = lambda t: t.view(B, N, self.h, self.d).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        if self.kind == "full":
            p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.d), dim=-1)
            out = p @ v
        elif self.kind == "local":
            out = self.local(q, k, v, 64)
        elif self.kind == "linformer":
            E, Fm = self.E[:, :N], self.F[:, :N]
            p = torch.softmax(q @ (E @ k).transpose(-1, -2) / math.sqrt(self.d), dim=-1)
            out = p @ (Fm @ v)
        elif self.kind in ("performer", "linear"):
            if self.kind == "linear":
                fq, fk = F.elu(q) + 1, F.elu(k) + 1
            else:
                fq, fk = self.favor(q, True), self.favor(k, False)
            kv = fk.transpose(-1, -2) @ v
            z = fq @ fk.sum(dim=2, keepdim=True).transpose(-1, -2)
            out = (fq @ kv) / (z + 1e-6)
        return self.o(out.transpose(1, 2).reshape(B, N, D))

    def favor(self, x, is_query):
        x = x * self.d ** -0.25
        proj = x @ self.W.T
        sq = (x * x).sum(-1, keepdim=True) / 2
        mx = proj.amax(dim=-1, keepdim=True) if is_query else proj.amax()
        return torch.exp(proj - sq - mx.detach()) / math.sqrt(self.W.shape[0]) + 1e-6

    def local(self, q, k, v, w):
        B, H, N, d = q.shape
        nb = (N + w - 1) // w
        pad = nb * w - N
        if pad:
            q, k, v = (F.pad(t, (0, 0, 0, pad)) for t in (q, k, v))
        qb = q.view(B, H, nb, w, d)
        kb, vb = k.view(B, H, nb, w, d), v.view(B, H, nb, w, d)
        look = lambda t: torch.cat([F.pad(t, (0, 0, 0, 0, 1, 0))[:, :, :-1], t,
                                    F.pad(t, (0, 0, 0, 0, 0, 1))[:, :, 1:]], dim=3)
        kk, vv = look(kb), look(vb)  # [B,H,nb,3w,d]
        s = qb @ kk.transpose(-1, -2) / math.sqrt(d)
        i = torch.arange(nb * w).view(nb, w, 1)
        j = (torch.arange(nb).view(nb, 1, 1) - 1) * w + torch.arange(3 * w).view(1, 1, 3 * w)
        bad = ((i - j).abs() > w) | (j < 0) | (j >= N)
        s = s.masked_fill(bad, float("-inf"))
        out = torch.softmax(s, dim=-1) @ vv
        return out.reshape(B, H, nb * w, d)[:, :, :N]


class Block(nn.Module):
    def __init__(self, kind, dim, heads, ffn, max_len, g):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(kind, dim, heads, max_len, g)
        self.ff = nn.Sequential(nn.Linear(dim, ffn), nn.GELU(approximate="tanh"), nn.Linear(ffn, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.ff(self.ln2(x))


class Classifier(nn.Module):
    def __init__(self, kind, dim, heads, layers, ffn, max_len):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.embed = nn.Embedding(257, dim)
        self.pos = nn.Parameter(torch.randn(max_len, dim) * 0.02)
        self.blocks = nn.ModuleList(Block(kind, dim, heads, ffn, max_len, g) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x).mean(dim=1))


def torch_rate(a, kind):
    torch.manual_seed(0)
    model = Classifier(kind, a.dim, a.heads, a.layers, a.ffn, a.seq_len)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
    tokens = torch.randint(1, 257, (a.batch, a.seq_len))
    labels = torch.randint(0, 10, (a.batch,))

    def step():
        loss = F.cross_entropy(model(tokens), labels)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(a.warmup):
        step()
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1.0 / times[len(times) // 2]


def ours_rate(a, kind):
    cmd = [a.attnzoo, "bench", "--model", kind, "--seq-len", str(a.seq_len), "--batch", str(a.batch),
           "--dim", str(a.dim), "--heads", str(a.heads), "--layers", str(a.layers), "--ffn", str(a.ffn),
           "--steps", str(a.steps), "--warmup", str(a.warmup)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["steps_per_s"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="full", help="comma-separated: full, local, linformer, performer, linear")
    p.add_argument("--seq-len", type=int, default=1024)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--ffn", type=int, default=256)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--attnzoo", default=os.path.join(os.path.dirname(__file__), "..", "build", "attnzoo"))
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    os.environ["OMP_NUM_THREADS"] = str(a.threads)
    print(f"torch {torch.__version__}, {a.threads} threads; N={a.seq_len} B={a.batch} D={a.dim} H={a.heads} "
          f"L={a.layers} F={a.ffn}; median of {a.steps} steps")
    print(f"{'model':<12}{'attnzoo steps/s':>17}{'pytorch steps/s':>17}{'ratio':>8}")
    for kind in a.model.split(","):
        ours, theirs = ours_rate(a, kind), torch_rate(a, kind)
        print(f"{kind:<12}{ours:>17.3f}{theirs:>17.3f}{ours / theirs:>7.2f}x", flush=True)


if __name__ == "__main__":
    sys.exit(main())
