#!/usr/bin/env python3
"""The PyTorch twin of attnzoo's SequenceClassifier, for the golden tests.

Each token mixer (mixers.py) is written from its paper (cited at its function), in plain
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
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

from mixers import MIXERS, gelu, layer_norm, linear

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
