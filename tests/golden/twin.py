#!/usr/bin/env python3
"""The PyTorch twin of attnzoo's SequenceClassifier, for the golden tests.

Each token mixer is written from its paper (cited at its function), in plain
PyTorch and float64, as the dense N x N computation the paper defines; it is
not a translation of the C++ (which computes the same thing blockwise, by
prefix sums, in tiles or fused kernels).  What the twin takes from attnzoo is
only what it needs to load the weights: the parameter names, that Linear
weights are stored [in, out] (x @ W + b), and what each buffer holds.

    twin.py IN_DIR OUT_DIR
reads every IN_DIR/CASE.in.safetensors (tests/golden/make_inputs.cpp: weights,
buffers, a batch, the model configuration as model.KEY metadata) and writes
OUT_DIR/CASE.safetensors with the same tensors plus out.logits [B,C], out.loss
[] and grad.NAME for every parameter (cross-entropy, mean over the batch).

    twin.py --predict MODEL.safetensors DATA.safetensors
loads a model written by `attnzoo export` and the batches of
`attnzoo export --data-out` and prints the accuracy and loss `attnzoo eval`
prints for that split.
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


# ---- safetensors (the format: u64 header length, JSON header, raw data) -----------------
def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = raw[8 + n:]
    out = {}
    for name, e in header.items():
        assert e["dtype"] == "F32", (name, e["dtype"])
        b, end = e["data_offsets"]
        a = np.frombuffer(data[b:end], dtype="<f4").reshape(e["shape"])
        out[name] = torch.tensor(a.astype(np.float64))
    return out, meta


def save_safetensors(path, tensors, meta):
    header, blobs, at = {"__metadata__": meta}, [], 0
    for name, t in tensors.items():
        a = np.ascontiguousarray(t.detach().to(torch.float64).numpy().astype("<f4"))
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [at, at + a.nbytes]}
        blobs.append(a.tobytes())
        at += a.nbytes
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    os.replace(path + ".tmp", path)


# ---- the model ------------------------------------------------------------------------------
class Ctx:
    """Weights, the model configuration and the current padding mask."""

    def __init__(self, W, meta):
        self.W = W
        self.cfg = {k[6:]: v for k, v in meta.items() if k.startswith("model.")}
        c = self.cfg
        self.model = c["model"]
        self.D, self.H = int(float(c["dim"])), int(float(c["heads"]))
        self.d = self.D // self.H
        self.causal = c["causal"] == "1"
        self.max_len = int(float(c["max_len"])) + (1 if c["pool"] == "cls" else 0)
        self.knobs = {k[5:]: float(v) for k, v in c.items() if k.startswith("knob.")}

    def knob(self, name):
        return self.knobs[name]


def linear(ctx, x, name):  # attnzoo stores Linear weights [in, out]
    y = x @ ctx.W[name + ".weight"]
    b = ctx.W.get(name + ".bias")
    return y if b is None else y + b


def layer_norm(ctx, x, name):  # Ba et al. 2016: biased variance, eps 1e-5 (PyTorch's default)
    return F.layer_norm(x, x.shape[-1:], ctx.W[name + ".gamma"], ctx.W[name + ".beta"], eps=1e-5)


def gelu(x):  # Hendrycks & Gimpel 2016, tanh form (BERT, GPT-2 and LRA's flax nn.gelu)
    return F.gelu(x, approximate="tanh")


def heads(ctx, t):  # [B,N,D] -> [B,H,N,d]
    B, N, _ = t.shape
    return t.reshape(B, N, ctx.H, ctx.d).transpose(1, 2)


def merge(t):  # [B,H,N,d] -> [B,N,D]
    B, H, N, d = t.shape
    return t.transpose(1, 2).reshape(B, N, H * d)


def allowed(ctx, pad):
    """[B,1,N,N] True where query i may see key j: j not padding, j <= i when causal."""
    B, N = pad.shape
    a = (pad == 0)[:, None, None, :].expand(B, 1, N, N)
    if ctx.causal:
        a = a & torch.ones(N, N, dtype=torch.bool).tril()
    return a


def masked_softmax_attention(scores, allow, v):
    # A padded query may have no key it is allowed to see (a window of padding); its output is
    # never used (padded positions are masked as keys and left out of the pool), so it may be
    # anything finite: let it see every key rather than produce 0/0.
    allow = allow | ~allow.any(-1, keepdim=True)
    return torch.softmax(scores.masked_fill(~allow, -math.inf), dim=-1) @ v


def sinusoidal(n, D):  # Vaswani et al. 2017 section 3.5
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(D)[None, :]
    angle = pos / torch.pow(10000.0, (2 * (i // 2)).double() / D)
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


def forward(ctx, batch):
    W, c = ctx.W, ctx.cfg
    pad = batch["batch.pad_mask"]
    if "batch.patches" in batch:
        x = linear(ctx, batch["batch.patches"], "patch")
    else:
        x = W["embed.weight"][batch["batch.tokens"].long()]
    B, N, D = x.shape
    if c["pool"] == "cls":
        x = torch.cat([W["cls"].reshape(1, 1, D).expand(B, 1, D), x], 1)
        pad = torch.cat([torch.zeros(B, 1), pad], 1)
        N += 1
    x = x + (W["pos.table"][:N] if c["positions"] == "learned" else sinusoidal(N, D))
    mixer = MIXERS[ctx.model]
    for l in range(int(float(c["layers"]))):
        p = "blocks.%d." % l
        x = x + mixer(ctx, layer_norm(ctx, x, p + "ln1"), pad, p + "mixer.")
        if ctx.model != "gmlp":  # gMLP is a whole block (Liu et al. 2021, figure 1)
            h = layer_norm(ctx, x, p + "ln2")
            x = x + linear(ctx, gelu(linear(ctx, h, p + "ffn.fc1")), p + "ffn.fc2")
    x = layer_norm(ctx, x, "ln_f")
    if c["pool"] == "cls":
        pooled = x[:, 0]
    else:
        keep = (pad == 0).double()
        pooled = (x * keep[..., None]).sum(1) / keep.sum(1, keepdim=True)
    return linear(ctx, pooled, "head")


# ---- token mixers, each from its paper ------------------------------------------------------
def qkv(ctx, x, p):
    return (heads(ctx, linear(ctx, x, p + "proj.q")), heads(ctx, linear(ctx, x, p + "proj.k")),
            heads(ctx, linear(ctx, x, p + "proj.v")))


def out_proj(ctx, o, p):
    return linear(ctx, merge(o), p + "proj.o")


def full(ctx, x, pad, p):
    """Vaswani et al. 2017, eq. 1: softmax(Q K^T / sqrt(d)) V, per head."""
    q, k, v = qkv(ctx, x, p)
    s = q @ k.transpose(-1, -2) / math.sqrt(ctx.d)
    return out_proj(ctx, masked_softmax_attention(s, allowed(ctx, pad), v), p)


def local(ctx, x, pad, p):
    """Local attention (Parmar et al. 2018; LRA's local baseline): query i sees keys |i - j| <= w
    (causal: i - w <= j <= i).  The blocks are an implementation detail: the band is the definition."""
    q, k, v = qkv(ctx, x, p)
    N, w = x.shape[1], int(ctx.knob("window"))
    i, j = torch.arange(N)[:, None], torch.arange(N)[None, :]
    band = (i - j).abs() <= w
    s = q @ k.transpose(-1, -2) / math.sqrt(ctx.d)
    return out_proj(ctx, masked_softmax_attention(s, allowed(ctx, pad) & band, v), p)


def kernel_attention(ctx, phi_q, phi_k, v, pad, eps):
    """out_i = sum_j phi(q_i).phi(k_j) v_j / (sum_j phi(q_i).phi(k_j) + eps) over allowed keys,
    written as the explicit N x N sum (Katharopoulos et al. 2020, eq. 4)."""
    a = (phi_q @ phi_k.transpose(-1, -2)) * allowed(ctx, pad)
    return (a @ v) / (a.sum(-1, keepdim=True) + eps)


def linear_attn(ctx, x, pad, p):
    """Katharopoulos et al. 2020, eq. 4 and 7: phi(x) = elu(x) + 1, no 1/sqrt(d); the 1e-6 in the
    normaliser is their released code's (fast_transformers LinearAttention eps)."""
    q, k, v = qkv(ctx, x, p)
    phi = lambda t: F.elu(t) + 1
    return out_proj(ctx, kernel_attention(ctx, phi(q), phi(k), v, pad, 1e-6), p)


def performer(ctx, x, pad, p):
    """Choromanski et al. 2021 (FAVOR+), eq. for positive random features (lemma 1):
    phi(x) = m^-1/2 exp(w_i . x - |x|^2 / 2) with x = q / d^(1/4), so that
    E[phi(q).phi(k)] = exp(q.k / sqrt(d)); W [m,d] is the buffer of fixed features.
    The exact ratio, without stabilisers or epsilons (they cancel or are small by design)."""
    q, k, v = qkv(ctx, x, p)
    Wf = ctx.W[p + "features"]
    m = Wf.shape[0]
    s = ctx.d ** -0.25

    def phi(t):
        t = t * s
        return torch.exp(t @ Wf.T - (t * t).sum(-1, keepdim=True) / 2) / math.sqrt(m)

    return out_proj(ctx, kernel_attention(ctx, phi(q), phi(k), v, pad, 0.0), p)


def linformer(ctx, x, pad, p):
    """Wang et al. 2020, eq. 7: softmax(Q (E K)^T / sqrt(d)) (F V), E, F [k, n] sliced to the
    input length; padded keys and values are zero (they are not part of the sequence)."""
    q = heads(ctx, linear(ctx, x, p + "proj.q"))
    keep = (pad == 0).double()[..., None]
    k = heads(ctx, linear(ctx, x, p + "proj.k") * keep)
    v = heads(ctx, linear(ctx, x, p + "proj.v") * keep)
    N = x.shape[1]
    E = ctx.W[p + "E"][..., :N]
    Fm = ctx.W.get(p + "F", ctx.W[p + "E"])[..., :N]  # share_kv: F = E
    k, v = E @ k, Fm @ v  # [k,N] or [H,k,N] against [B,H,N,d]
    s = q @ k.transpose(-1, -2) / math.sqrt(ctx.d)
    return out_proj(ctx, torch.softmax(s, -1) @ v, p)


def synthesizer(ctx, x, pad, p):
    """Tay et al. 2021: Dense, B_i = W2 relu(W1 x_i + b1) + b2 (section 3.1, per head, W2 shared
    by heads as in LRA); Random, B = R (3.2); Factorised random, B = R1 R2^T.  Y = softmax(B) G(X)."""
    B, N, _ = x.shape
    v = heads(ctx, linear(ctx, x, p + "value"))
    mode = int(ctx.knob("synth_mode"))
    if mode == 0:
        h = heads(ctx, torch.relu(linear(ctx, x, p + "dense1")))  # [B,H,N,d]
        logits = (h @ ctx.W[p + "dense2.weight"] + ctx.W[p + "dense2.bias"])[..., :N]
    elif mode == 1:
        logits = ctx.W[p + "random"][None, :, :N, :N]
    else:
        r1, r2 = ctx.W[p + "random1"][:, :N], ctx.W[p + "random2"][:, :N]
        logits = (r1 @ r2.transpose(-1, -2))[None]
    o = masked_softmax_attention(logits, allowed(ctx, pad), v)
    return linear(ctx, merge(o), p + "out")


def mixer(ctx, x, pad, p):
    """Tolstikhin et al. 2021, eq. 1: token mixing U = X + W2 gelu(W1 LN(X)^T)^T, an MLP across
    positions shared by the channels (the residual and LN are the block's).  attnzoo stores
    token_fc1.weight [positions, D_S] and token_fc2.weight [positions, D_S] (one row per output
    position), sliced to N positions; padded rows are not part of the sequence (zero)."""
    N = x.shape[1]
    x = x * (pad == 0).double()[..., None]
    xt = x.transpose(1, 2)  # [B,D,N]
    h = gelu(xt @ ctx.W[p + "token_fc1.weight"][:N] + ctx.W[p + "token_fc1.bias"])
    y = h @ ctx.W[p + "token_fc2.weight"][:N].T + ctx.W[p + "token_fc2.bias"][:N]
    return y.transpose(1, 2)


def gmlp(ctx, x, pad, p):
    """Liu et al. 2021, eq. 1-3 (pseudo-code, figure 1): Z = gelu(X U), split Z1, Z2;
    s(Z) = Z1 * (W LN(Z2) + b) with W [n,n] over positions (lower-triangular when causal);
    out = s(Z) V.  U is stored as its two halves proj_u (Z1) and proj_v (Z2)."""
    N = x.shape[1]
    z1 = gelu(linear(ctx, x, p + "proj_u"))
    z2 = layer_norm(ctx, gelu(linear(ctx, x, p + "proj_v")), p + "norm")
    z2 = z2 * (pad == 0).double()[..., None]  # padding is not part of the sequence
    Ws = ctx.W[p + "spatial.weight"][:N, :N]
    if ctx.causal:
        Ws = Ws.tril()
    gate = Ws @ z2 + ctx.W[p + "spatial.bias"][:N, None]
    return linear(ctx, z1 * gate, p + "proj_out")


def fnet(ctx, x, pad, p):
    """Lee-Thorp et al. 2021, eq. 3: y = Re(F_seq(F_hidden(x))), here the unitary DFT (scaled
    1/sqrt(n D), attnzoo's --ortho 1) over each example's own n real positions (--own-length 1)."""
    assert ctx.knob("ortho") == 1 and ctx.knob("own_length") == 1
    out = torch.zeros_like(x)
    for b in range(x.shape[0]):
        n = int((pad[b] == 0).sum())
        out[b, :n] = torch.fft.fft2(x[b, :n].to(torch.complex128), norm="ortho").real
    return out


def band_attention(ctx, x, pad, p, allow_of_head):
    """Softmax attention restricted to a pattern: allow_of_head(h) is [N,N] bool (True = computed)."""
    q, k, v = qkv(ctx, x, p)
    N = x.shape[1]
    pattern = torch.stack([allow_of_head(h) for h in range(ctx.H)])[None]  # [1,H,N,N]
    s = q @ k.transpose(-1, -2) / math.sqrt(ctx.d)
    return out_proj(ctx, masked_softmax_attention(s, allowed(ctx, pad) & pattern, v), p)


def offsets(N):
    i, j = torch.arange(N)[:, None], torch.arange(N)[None, :]
    return j - i


def strided(ctx, x, pad, p):
    """Child et al. 2019 (Sparse Transformer), the strided pattern: keys j = i + k s, here with
    |k| <= w (causal: k <= 0, from the causal mask)."""
    N, w, st = x.shape[1], int(ctx.knob("window")), int(ctx.knob("stride"))
    o = offsets(N)
    return band_attention(ctx, x, pad, p, lambda h: (o % st == 0) & (o.abs() <= w * st))


def global_pattern(N, g):
    i, j = torch.arange(N)[:, None], torch.arange(N)[None, :]
    return (i < g) | (j < g)


def global_attn(ctx, x, pad, p):
    """Global tokens alone (ETC, Ainslie et al. 2020; BigBird's ITC globals): the g global tokens
    attend to all tokens and all tokens attend to them; nothing else.  --learned 1: g learned
    tokens are prepended (ETC's extra tokens) and their outputs dropped."""
    g = int(ctx.knob("globals"))
    if ctx.knob("learned") == 0:
        return band_attention(ctx, x, pad, p, lambda h: global_pattern(x.shape[1], g))
    B, N, D = x.shape
    t = ctx.W[p + "tokens"][None].expand(B, g, D)
    xe, pe = torch.cat([t, x], 1), torch.cat([torch.zeros(B, g), pad], 1)
    return band_attention(ctx, xe, pe, p, lambda h: global_pattern(N + g, g))[:, g:]


def longformer(ctx, x, pad, p):
    """Beltagy et al. 2020, section 3.1: sliding window |i - j| <= w on some heads, dilated window
    j = i + k s, |k| <= w on the others (here the last --dilated-heads heads), and the first g
    positions global (symmetric: they see all, all see them)."""
    N, w, st, g = x.shape[1], int(ctx.knob("window")), int(ctx.knob("dilation")), int(ctx.knob("globals"))
    dil = int(ctx.knob("dilated_heads"))
    dil = ctx.H // 2 if dil < 0 else dil
    o = offsets(N)
    local_band, dilated_band = o.abs() <= w, (o % st == 0) & (o.abs() <= w * st)
    glob = global_pattern(N, g)
    return band_attention(ctx, x, pad, p, lambda h: (dilated_band if h >= ctx.H - dil else local_band) | glob)


def splitmix64(z):  # Steele et al. 2014's finaliser (attnzoo's hash64)
    M = (1 << 64) - 1
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def bigbird(ctx, x, pad, p):
    """Zaheer et al. 2020, section 2 and appendix D (ITC): blocks of b; the first and last query
    blocks are global (see every key); every other query block i sees key blocks i-1, i, i+1, the
    first and last, and r random blocks from the rest.  The random blocks are what the
    random_seed buffer [H, M] encodes: block i of head h takes the r blocks j (not window, not
    global) with the smallest splitmix64(seed[h, i] << 32 | j)."""
    N, b, r = x.shape[1], int(ctx.knob("block")), int(ctx.knob("random_blocks"))
    nb = (N + b - 1) // b
    seeds = ctx.W[p + "random_seed"]

    def head(h):
        blocks = torch.zeros(nb, nb, dtype=torch.bool)
        for i in range(nb):
            if i in (0, nb - 1):
                blocks[i] = True
                continue
            fixed = {i - 1, i, i + 1, 0, nb - 1}
            cand = sorted((splitmix64(int(seeds[h, i]) << 32 | j), j) for j in range(nb) if j not in fixed)
            for j in fixed | {j for _, j in cand[:r]}:
                blocks[i, j] = True
        pos = torch.arange(N) // b
        return blocks[pos][:, pos]

    return band_attention(ctx, x, pad, p, head)


def compressed(ctx, x, pad, p):
    """Liu et al. 2018, section 4.2.2 (memory-compressed attention): keys and values are reduced by
    a strided convolution, kernel = stride = c, over the sequence; queries attend to the M = ceil(N/c)
    compressed slots.  Padding and the ragged tail are zeros; a slot of padding only is excluded.
    attnzoo stores the convolution as a Linear [c*D, D] over a block's c rows, row-major."""
    B, N, D = x.shape
    c = int(ctx.knob("compress"))
    M = (N + c - 1) // c
    keep = (pad == 0).double()

    def conv(t, name):
        t = torch.cat([t * keep[..., None], torch.zeros(B, M * c - N, D)], 1)  # [B, M c, D]
        Wl = ctx.W[p + name + ".weight"]  # [(tap, channel), out]
        Wc = Wl.reshape(c, D, -1).permute(2, 1, 0)  # Conv1d weight [out, channel, tap]
        return F.conv1d(t.transpose(1, 2), Wc, ctx.W[p + name + ".bias"], stride=c).transpose(1, 2)

    q = heads(ctx, linear(ctx, x, p + "proj.q"))
    k = heads(ctx, conv(linear(ctx, x, p + "proj.k"), "conv_k"))
    v = heads(ctx, conv(linear(ctx, x, p + "proj.v"), "conv_v"))
    slot_real = torch.cat([keep, torch.zeros(B, M * c - N)], 1).reshape(B, M, c).sum(-1) > 0
    s = q @ k.transpose(-1, -2) / math.sqrt(ctx.d)
    return out_proj(ctx, masked_softmax_attention(s, slot_real[:, None, None, :].expand(s.shape), v), p)


def efficient(ctx, x, pad, p):
    """Shen et al. 2021, eq. 4: E(Q, K, V) = rho_q(Q) (rho_k(K)^T V), rho_q a softmax over each
    query's features, rho_k a softmax over positions for each key feature (padding excluded)."""
    q, k, v = qkv(ctx, x, p)
    rq = torch.softmax(q, -1)
    rk = torch.softmax(k.masked_fill((pad != 0)[:, None, :, None], -math.inf), -2)
    return out_proj(ctx, rq @ (rk.transpose(-1, -2) @ v), p)


def rfa(ctx, x, pad, p):
    """Peng et al. 2021, eq. 2-5: q, k normalised to unit length, phi(x) = m^-1/2 [sin(W x), cos(W x)]
    with W = random [m, d] (the features buffer) times the learned per-dimension sigma [H, d];
    out = phi(q) sum_j phi(k_j) v_j / phi(q) sum_j phi(k_j), the normaliser clamped below at 1
    (attnzoo's choice for the RFA code's clamp: sin/cos estimates may go negative)."""
    q, k, v = qkv(ctx, x, p)
    Wf, sigma = ctx.W[p + "features"], ctx.W[p + "sigma"]  # [m,d], [H,d]
    m = Wf.shape[0]

    def phi(t):
        t = t / t.norm(dim=-1, keepdim=True)
        u = (t * sigma[None, :, None, :]) @ Wf.T
        return torch.cat([torch.sin(u), torch.cos(u)], -1) / math.sqrt(m)

    a = (phi(q) @ phi(k).transpose(-1, -2)) * allowed(ctx, pad)
    return out_proj(ctx, (a @ v) / a.sum(-1, keepdim=True).clamp(min=1.0), p)


def reformer(ctx, x, pad, p):
    """Kitaev et al. 2020, section 2 (LSH attention): shared QK, keys k_j = q_j / |q_j|; angular LSH
    h(x) = argmax([x R; -x R]) with R [d, b/2] per round (the rotations buffer [d, hashes * b/2],
    round r in columns r b/2 ..); tokens sorted by (bucket, position) and cut into chunks of c, each
    attending to its own chunk and the previous one (wrapping); a token attends to itself only when
    nothing else is there (score -5e4, lucidrains' TOKEN_SELF_ATTN_VALUE).  Rounds are combined as
    one softmax over all rounds' entries, a key found in r rounds counted r times (the paper's
    eq. for multi-round LSH without its duplicate correction, as lucidrains' default).  Padding
    is no key, and hashed after every real bucket so that it sorts to the end."""
    q = heads(ctx, linear(ctx, x, p + "proj.q"))
    v = heads(ctx, linear(ctx, x, p + "proj.v"))
    B, H, N, d = q.shape
    c = min(int(ctx.knob("bucket_size")), N)
    R = int(ctx.knob("hashes"))
    assert N % c == 0 and ctx.knob("buckets") > 0, "twin: N must be a multiple of the chunk, --buckets given"
    nb = int(ctx.knob("buckets"))
    rot = ctx.W[p + "rotations"]
    mhalf = rot.shape[1] // R
    k = q / q.norm(dim=-1, keepdim=True)
    s = q @ k.transpose(-1, -2) / math.sqrt(d)
    s = s.masked_fill(torch.eye(N, dtype=torch.bool), -5e4)
    count = torch.zeros(B, H, N, N)  # how many rounds put key j among query i's candidates
    C = N // c
    for b in range(B):
        for h in range(H):
            for r in range(R):
                xr = q[b, h].detach() @ rot[:, r * mhalf:r * mhalf + nb // 2]
                bucket = torch.cat([xr, -xr], -1).argmax(-1)
                bucket = torch.where(pad[b] != 0, torch.full_like(bucket, nb), bucket)
                order = sorted(range(N), key=lambda n: (int(bucket[n]), n))
                chunks = [order[i * c:(i + 1) * c] for i in range(C)]
                for i in range(C):
                    keys = chunks[i] + (chunks[(i - 1) % C] if C > 1 else [])
                    for qi in chunks[i]:
                        for kj in keys:
                            count[b, h, qi, kj] += 1
    count = count * (pad == 0)[:, None, None, :]
    # A row whose only candidates are padding (a padded query): anything finite.
    count = count + (count.sum(-1, keepdim=True) == 0).double()
    w = count * torch.exp(s - s.max(-1, keepdim=True).values)
    return out_proj(ctx, (w @ v) / w.sum(-1, keepdim=True), p)


def routing(ctx, x, pad, p):
    """Roy et al. 2021, section 4 (Routing Transformer) with balanced clusters (their top-k variant,
    lucidrains' KmeansAttention): cluster c (centroids buffer [H, C, d], unit vectors) takes the w
    queries and the w keys of highest cosine similarity to its centroid (padding last, ties by
    position); its queries attend to its keys by softmax(q k^T / sqrt(d)); a query's output is the
    mean over the clusters that took it, 0 if none did.  Centroids are fixed here (eval)."""
    q, k, v = qkv(ctx, x, p)
    B, H, N, d = q.shape
    mu = ctx.W[p + "centroids"]
    C = mu.shape[1]
    w = min(N, int(ctx.knob("window")) or (N + C - 1) // C)
    out = torch.zeros_like(q)
    for b in range(B):
        for h in range(H):
            def top(t):
                sim = (t[b, h] / t[b, h].norm(dim=-1, keepdim=True)) @ mu[h].T  # [N, C]
                sim = sim.masked_fill((pad[b] != 0)[:, None], -math.inf)
                return [sorted(range(N), key=lambda n: (-float(sim[n, ci]), n))[:w] for ci in range(C)]
            qs, ks = top(q.detach()), top(k.detach())
            acc, cnt = torch.zeros(N, d), torch.zeros(N, 1)
            for ci in range(C):
                qi, kj = torch.tensor(qs[ci]), torch.tensor(ks[ci])
                sc = q[b, h, qi] @ k[b, h, kj].T / math.sqrt(d)
                sc = sc.masked_fill((pad[b, kj] != 0)[None, :], -math.inf)
                acc = acc.index_add(0, qi, torch.softmax(sc, -1) @ v[b, h, kj])
                cnt = cnt.index_add(0, qi, torch.ones(len(qi), 1))
            out[b, h] = acc / cnt.clamp(min=1)
    return out_proj(ctx, out, p)


def sinkhorn(ctx, x, pad, p):
    """Tay et al. 2020 (Sparse Sinkhorn Attention), sections 3.1-3.3: blocks of b; a sorting network
    gives block-pair log-scores R (attnzoo's bilinear form: SortNet(mean of block i's queries) .
    mean of block j's keys / sqrt(d), the block means over real tokens); Sinkhorn normalisation
    in log space (eq. 7, rows then columns, --sinkhorn-iters times) of R / tau (no Gumbel noise in
    evaluation) over the blocks holding a real token gives P; query block i attends to the sorted
    block sum_j P_ij (K_j, V_j) (padding zeroed) and to its own block (eq. 9: local + sorted).  A
    sorted slot is padding when less than half of its P-mass comes from real tokens."""
    assert ctx.knob("sortcut") == 0
    q, k, v = qkv(ctx, x, p)
    B, H, N, d = q.shape
    b = min(int(ctx.knob("block")), N)
    assert N % b == 0, "twin: N must be a multiple of the block"
    nb, iters, tau = N // b, int(ctx.knob("sinkhorn_iters")), ctx.knob("temperature")
    valid = (pad == 0).double()  # [B,N]
    vb = valid.reshape(B, 1, nb, b, 1)

    def block_mean(t):
        return (t.reshape(B, H, nb, b, d) * vb).sum(3) / vb.sum(3).clamp(min=1)

    sq = linear(ctx, torch.relu(linear(ctx, block_mean(q), p + "sort.fc1")), p + "sort.fc2")
    r = sq @ block_mean(k).transpose(-1, -2) / math.sqrt(d) / tau  # [B,H,nb,nb]
    P = torch.zeros_like(r)
    for bi in range(B):
        ne = [i for i in range(nb) if vb[bi, 0, i].sum() > 0]  # blocks with a real token
        lr = r[bi][:, ne][:, :, ne]
        for _ in range(iters):
            lr = lr - torch.logsumexp(lr, -1, keepdim=True)
            lr = lr - torch.logsumexp(lr, -2, keepdim=True)
        idx = torch.tensor(ne)
        P[bi, :, idx[:, None], idx[None, :]] = torch.exp(lr)
    kz = (k * valid[:, None, :, None]).reshape(B, H, nb, b * d)
    vz = (v * valid[:, None, :, None]).reshape(B, H, nb, b * d)
    ks, vs = (P @ kz).reshape(B, H, nb, b, d), (P @ vz).reshape(B, H, nb, b, d)
    slot_real = (P @ valid.reshape(B, 1, nb, b)) >= 0.5  # [B,H,nb(sorted block),b]
    qb, kb, vb_ = (t.reshape(B, H, nb, b, d) for t in (q, k, v))
    keys, vals = torch.cat([ks, kb], 3), torch.cat([vs, vb_], 3)  # [B,H,nb,2b,d]
    allow = torch.cat([slot_real, (valid.reshape(B, 1, nb, b) > 0).expand(B, H, nb, b)], -1)  # [B,H,nb,2b]
    sc = qb @ keys.transpose(-1, -2) / math.sqrt(d)  # [B,H,nb,b,2b]
    o = masked_softmax_attention(sc, allow[:, :, :, None, :].expand(sc.shape), vals)
    return out_proj(ctx, o.reshape(B, H, N, d), p)


MIXERS = {"full": full, "flash": full, "local": local, "linear": linear_attn, "performer": performer,
          "linformer": linformer, "synthesizer": synthesizer, "mixer": mixer, "gmlp": gmlp, "fnet": fnet,
          "strided": strided, "global": global_attn, "longformer": longformer, "bigbird": bigbird,
          "compressed": compressed, "efficient": efficient, "rfa": rfa, "reformer": reformer, "routing": routing,
          "sinkhorn": sinkhorn}


# ---- the golden files -------------------------------------------------------------------------
def golden(src, dst):
    W, meta = load_safetensors(src)
    ctx = Ctx(W, meta)
    if ctx.model not in MIXERS:
        print("twin: no twin for %s yet (%s skipped)" % (ctx.model, meta["case"]))
        return False
    buffers = set(filter(None, meta["buffers"].split(",")))
    params = {k: v.requires_grad_() for k, v in W.items() if not k.startswith("batch.") and k not in buffers}
    logits = forward(ctx, W)
    loss = F.cross_entropy(logits, W["batch.labels"].long())
    loss.backward()
    for k, v in params.items():
        assert v.grad is None or torch.isfinite(v.grad).all(), (meta["case"], k)
    assert torch.isfinite(logits).all(), meta["case"]
    out = dict(W)
    out["out.logits"], out["out.loss"] = logits, loss
    for k, v in params.items():
        out["grad." + k] = v.grad if v.grad is not None else torch.zeros_like(v)
    meta = dict(meta, twin="PyTorch %s, float64" % torch.__version__)
    save_safetensors(dst, out, meta)
    return True


def main(argv):
    if len(argv) == 4 and argv[1] == "--predict":
        return predict(argv[2], argv[3])
    if len(argv) != 3:
        print(__doc__)
        return 2
    names = sorted(f[:-len(".in.safetensors")] for f in os.listdir(argv[1]) if f.endswith(".in.safetensors"))
    done = [n for n in names
            if golden(os.path.join(argv[1], n + ".in.safetensors"), os.path.join(argv[2], n + ".safetensors"))]
    print("twin: %d of %d cases written to %s" % (len(done), len(names), argv[2]))
    return 0


def predict(model_path, data_path):
    W, meta = load_safetensors(model_path)
    ctx = Ctx(W, meta)
    D, dmeta = load_safetensors(data_path)
    correct = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for k in range(int(dmeta["batches"])):
            pre = "data.%d." % k
            batch = {"batch." + n[len(pre):]: t for n, t in D.items() if n.startswith(pre)}
            logits = forward(ctx, batch)
            labels = batch["batch.labels"].long()
            loss_sum += float(F.cross_entropy(logits, labels, reduction="sum"))
            correct += int((logits.argmax(1) == labels).sum())
            total += len(labels)
    print("%s accuracy %.4f, loss %.4f over %d examples (PyTorch twin)" % (dmeta["split"], correct / total,
                                                                        loss_sum / total, total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
