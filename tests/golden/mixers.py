"""The 20 token mixers of attnzoo, each written from its paper, for the PyTorch twin (twin.py).

Every mixer is f(ctx, x [B,N,D], pad [B,N] (1 = padding), prefix) -> [B,N,D], in float64, as the
dense computation its paper defines (cited in each docstring), never the C++'s blockwise, fused or
prefix-sum form.  From attnzoo it takes only how to read the weights: parameter names, Linear
weights stored [in, out] (x @ W + b), and what each buffer holds.  Outputs at padded positions are
never used by the model and may be anything finite.
"""
import math

import torch
import torch.nn.functional as F

# ---- layers ------------------------------------------------------------------------------------
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
    position), sliced to N positions; padded rows are not part of the sequence (zero).  Causal:
    D_S = max_len, W1 upper- and W2 lower-triangular over (position, hidden unit)."""
    N = x.shape[1]
    x = x * (pad == 0).double()[..., None]
    xt = x.transpose(1, 2)  # [B,D,N]
    W1, W2 = ctx.W[p + "token_fc1.weight"][:N], ctx.W[p + "token_fc2.weight"][:N]
    b1 = ctx.W[p + "token_fc1.bias"]
    if ctx.causal:  # one hidden unit per position: unit h reads positions j <= h, output i units h <= i
        W1, W2, b1 = W1[:, :N].triu(), W2[:, :N].tril(), b1[:N]
    h = gelu(xt @ W1 + b1)
    y = h @ W2.T + ctx.W[p + "token_fc2.bias"][:N]
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
    pattern = torch.stack([allow_of_head(h) for h in range(ctx.H)])[None]  # [1,H,N,N]
    s = q @ k.transpose(-1, -2) / math.sqrt(ctx.d)
    return out_proj(ctx, masked_softmax_attention(s, allowed(ctx, pad) & pattern, v), p)


def pad_to_multiple(x, pad, m):
    """x [B,N,D], pad [B,N] -> both extended with padding rows to a multiple of m, and N."""
    B, N, D = x.shape
    extra = (-N) % m
    return torch.cat([x, torch.zeros(B, extra, D)], 1), torch.cat([pad, torch.ones(B, extra)], 1), N


def each_alone(mixer):
    """The mixer run on each example alone, cut to its length (its last real token + 1): for the
    patterns whose blocks, buckets and chunks follow the sequence's length (BigBird, Reformer), an
    example's output is the one it has on its own, whatever its batch is padded to."""
    def run(ctx, x, pad, p):
        outs = []
        for b in range(x.shape[0]):
            real = (pad[b] == 0).nonzero()
            L = int(real.max()) + 1 if len(real) else 1
            y = mixer(ctx, x[b:b + 1, :L], pad[b:b + 1, :L], p)
            outs.append(torch.cat([y, torch.zeros(1, x.shape[1] - L, y.shape[2])], 1))
        return torch.cat(outs, 0)
    return run


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
    c = min(int(ctx.knob("bucket_size")), x.shape[1])
    x, pad, N0 = pad_to_multiple(x, pad, c)  # the sequence is padded to whole chunks
    q = heads(ctx, linear(ctx, x, p + "proj.q"))
    v = heads(ctx, linear(ctx, x, p + "proj.v"))
    B, H, N, d = q.shape
    R = int(ctx.knob("hashes"))
    nb = int(ctx.knob("buckets")) or max(2, N // c + (N // c) % 2)  # 0: length / chunk, even (each_alone: the example's)
    rot = ctx.W[p + "rotations"]
    mhalf = rot.shape[1] // R
    k = q / q.norm(dim=-1, keepdim=True)
    s = q @ k.transpose(-1, -2) / math.sqrt(d)
    s = s.masked_fill(torch.eye(N, dtype=torch.bool), -5e4)
    count = torch.zeros(B, H, N, N)  # how many rounds put key j among query i's candidates
    C = N // c
    n = torch.arange(N)
    for r in range(R):
        xr = q.detach() @ rot[:, r * mhalf:r * mhalf + nb // 2]  # [B,H,N,nb/2]
        bucket = torch.cat([xr, -xr], -1).argmax(-1)  # [B,H,N]
        bucket = torch.where((pad != 0)[:, None, :], torch.full_like(bucket, nb), bucket)
        order = torch.argsort(bucket * N + n)  # sorted by (bucket, position)
        chunk = torch.argsort(order) // c  # [B,H,N]: the chunk each position lands in
        ci, cj = chunk[..., :, None], chunk[..., None, :]
        count += ((cj == ci) | ((cj == (ci - 1) % C) & (C > 1))).double()
    count = count * (pad == 0)[:, None, None, :]
    # A row whose only candidates are padding (a padded query): anything finite.
    count = count + (count.sum(-1, keepdim=True) == 0).double()
    w = count * torch.exp(s - s.max(-1, keepdim=True).values)
    return out_proj(ctx, (w @ v) / w.sum(-1, keepdim=True), p)[:, :N0]


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

    def members(t):  # [B,H,C,N] True for the w rows cluster c takes
        sim = (t / t.norm(dim=-1, keepdim=True)) @ mu.transpose(-1, -2)[None]  # [B,H,N,C]
        sim = sim.masked_fill((pad != 0)[:, None, :, None], -math.inf).transpose(-1, -2)
        idx = torch.sort(-sim, dim=-1, stable=True).indices[..., :w]  # ties: lower position first
        return torch.zeros(sim.shape, dtype=torch.bool).scatter(-1, idx, True)

    mq, mk = members(q.detach()), members(k.detach())
    s = q @ k.transpose(-1, -2) / math.sqrt(d)
    acc = torch.zeros_like(q)
    for ci in range(C):
        allow = mq[:, :, ci, :, None] & mk[:, :, ci, None, :] & (pad == 0)[:, None, None, :]
        acc = acc + masked_softmax_attention(s, allow, v) * mq[:, :, ci, :, None]
    out = acc / mq.sum(2)[..., None].clamp(min=1)
    return out_proj(ctx, out, p)


def sinkhorn(ctx, x, pad, p):
    """Tay et al. 2020 (Sparse Sinkhorn Attention), sections 3.1-3.3: blocks of b; a sorting network
    gives block-pair log-scores R (attnzoo's bilinear form: SortNet(mean of block i's queries) .
    mean of block j's keys / sqrt(d), the block means over real tokens); Sinkhorn normalisation
    in log space (eq. 7, rows then columns, --sinkhorn-iters times) of R / tau (no Gumbel noise in
    evaluation) over the blocks holding a real token gives P; query block i attends to the sorted
    block sum_j P_ij (K_j, V_j) (padding zeroed) and to its own block (eq. 9: local + sorted).  A
    sorted slot is padding when less than half of its P-mass comes from real tokens."""
    assert ctx.knob("sortcut") == 0, "twin: SortCut is not written"
    b = min(int(ctx.knob("block")), x.shape[1])
    x, pad, N0 = pad_to_multiple(x, pad, b)  # the sequence is padded to whole blocks
    q, k, v = qkv(ctx, x, p)
    B, H, N, d = q.shape
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
    return out_proj(ctx, o.reshape(B, H, N, d), p)[:, :N0]


MIXERS = {"full": full, "flash": full, "local": local, "linear": linear_attn, "performer": performer,
          "linformer": linformer, "synthesizer": synthesizer, "mixer": mixer, "gmlp": gmlp, "fnet": fnet,
          "strided": strided, "global": global_attn, "longformer": longformer, "bigbird": each_alone(bigbird),
          "compressed": compressed, "efficient": efficient, "rfa": rfa, "reformer": each_alone(reformer), "routing": routing,
          "sinkhorn": sinkhorn}
