"""A small bidirectional transformer in the Qwen2 / Dream layout (the runtime's `dream` arch).

Per layer: RMSNorm -> q/k/v (with biases) -> NeoX RoPE -> grouped-query attention under the
prefix-cache mask -> output projection -> residual -> RMSNorm -> SwiGLU MLP -> residual.
Final RMSNorm; output head tied to the embedding or separate. Dream convention: the logits
of position i predict token i+1 (diffusion.shift_logits = true), so the answer token at
position p is read from the hidden state at p-1.

Attention pattern (what the runtime's prefix cache computes): every token carries a segment
id; segment 0 is the constant prefix (system, rule, options) and attends only to itself;
segment k >= 1 (one situation + its answer slot) attends to the prefix and to itself.
Positions restart after the prefix for every segment, so a packed sequence of k situations
gives exactly the logits of k separate cached decisions. Padding has segment -1.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab: int = 4096
    dim: int = 128
    layers: int = 4
    heads: int = 4
    kv_heads: int = 2
    ffn: int = 384
    rope_theta: float = 10000.0
    eps: float = 1e-6
    context: int = 1024
    tied: bool = True

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads

    def to_dict(self) -> dict:
        return asdict(self)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, pos, theta: float):
    """NeoX-style rotary embedding: rotate the two halves of each head. x: [B,H,T,D], pos: [B,T]."""
    d = x.shape[-1]
    inv = theta ** (-torch.arange(0, d // 2, dtype=torch.float32, device=x.device) * 2.0 / d)
    ang = pos.to(torch.float32)[:, None, :, None] * inv  # [B,1,T,D/2]
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def attention_bias(seg):
    """[B,1,T,T] additive mask: key j visible from query i iff seg[j] == 0 or seg[j] == seg[i]
    (and j is not padding)."""
    qi, kj = seg[:, :, None], seg[:, None, :]
    ok = ((kj == 0) | (kj == qi)) & (kj >= 0)
    ok = ok | torch.eye(seg.shape[1], dtype=torch.bool, device=seg.device)  # padding rows see themselves
    return torch.zeros(ok.shape, dtype=torch.float32, device=seg.device).masked_fill(~ok, float("-inf"))[
        :, None
    ]


class Block(nn.Module):
    def __init__(self, c: Config):
        super().__init__()
        self.c = c
        hd = c.head_dim
        self.attn_norm = RMSNorm(c.dim, c.eps)
        self.q = nn.Linear(c.dim, c.heads * hd, bias=True)
        self.k = nn.Linear(c.dim, c.kv_heads * hd, bias=True)
        self.v = nn.Linear(c.dim, c.kv_heads * hd, bias=True)
        self.o = nn.Linear(c.heads * hd, c.dim, bias=False)
        self.ffn_norm = RMSNorm(c.dim, c.eps)
        self.gate = nn.Linear(c.dim, c.ffn, bias=False)
        self.up = nn.Linear(c.dim, c.ffn, bias=False)
        self.down = nn.Linear(c.ffn, c.dim, bias=False)

    def forward(self, x, pos, bias, atts: list | None = None, rows=None):
        """rows (from `query_rows`), when given: compute only those positions' outputs
        [B, N, dim] (keys and values still come from every position); the last layer needs no
        more when only the answer slots are read."""
        c = self.c
        B, T, _ = x.shape
        hd = c.head_dim
        h = self.attn_norm(x)
        k = self.k(h).view(B, T, c.kv_heads, hd).transpose(1, 2)
        v = self.v(h).view(B, T, c.kv_heads, hd).transpose(1, 2)
        k = rope(k, pos, c.rope_theta)
        if rows is not None:
            idx = rows[0]
            x = x.gather(1, idx[..., None].expand(-1, -1, c.dim))
            h = h.gather(1, idx[..., None].expand(-1, -1, c.dim))
            pos = pos.gather(1, idx)
            bias = bias.gather(2, idx[:, None, :, None].expand(-1, -1, -1, T))
        Q = x.shape[1]
        q = rope(self.q(h).view(B, Q, c.heads, hd).transpose(1, 2), pos, c.rope_theta)
        if c.kv_heads != c.heads:
            rep = c.heads // c.kv_heads
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        # scale the queries, not the [T, T] scores, and add the mask in place: two fewer passes
        # over the largest tensors of a step (the matmul's backward never reads its output)
        att = (q * (1.0 / math.sqrt(hd))) @ k.transpose(-1, -2)
        p = torch.softmax(att.add_(bias), dim=-1)
        y = p @ v
        if atts is not None:
            atts.append((p, y))  # each head's attention and what it reads, before W_o
        x = x + self.o(y.transpose(1, 2).reshape(B, Q, c.heads * hd))
        h = self.ffn_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def query_rows(t_batch, t_pos, batch: int):
    """The positions (t_batch[n], t_pos[n]) laid out per batch row for Block's `rows`:
    (idx [B, N] with 0 in unused slots, slot [n]: where target n sits in its row)."""
    n = len(t_batch)
    order = torch.argsort(t_batch * (int(t_pos.max()) + 1 if n else 1) + t_pos)
    counts = torch.bincount(t_batch, minlength=batch)
    starts = torch.cumsum(counts, 0) - counts
    slot = torch.empty_like(t_batch)
    slot[order] = torch.arange(n, device=t_batch.device) - starts[t_batch[order]]
    idx = torch.zeros(batch, int(counts.max()) if n else 0, dtype=torch.long, device=t_batch.device)
    idx[t_batch, slot] = t_pos
    return idx, slot


class DreamModel(nn.Module):
    def __init__(self, c: Config):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab, c.dim)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.layers))
        self.norm = RMSNorm(c.dim, c.eps)
        self.out = None if c.tied else nn.Linear(c.dim, c.vocab, bias=False)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        # std = 1/sqrt(fan_in) for projections and 1/sqrt(dim) for the (tied) embedding.
        # Measured: with GPT-2's fixed 0.02 (tuned for dim >= 768) a dim-64 model stayed at
        # chance on a minimal "which rule word is in the situation" task for 3,000 steps;
        # with this init it left chance by ~750 steps.
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=m.weight.shape[1] ** -0.5)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=m.weight.shape[1] ** -0.5)

    @torch.no_grad()
    def mimetic_init(self, qk: float = 1.0, vo: float = 0.0):
        """Mimetic initialisation (Trockman & Kolter 2023): start every head with W_q ~ W_k so
        that a token attends to copies of itself (q.k is then ~||k||^2 for equal tokens, ~0 for
        others), optionally W_o ~ W_v^T so a head copies what it attends to. Generic: nothing
        about the task is encoded; gradient descent still learns every weight."""
        c = self.c
        hd, rep = c.head_dim, c.heads // c.kv_heads
        for b in self.blocks:
            if qk:
                for h in range(c.heads):
                    g = h // rep
                    wk = b.k.weight[g * hd : (g + 1) * hd]
                    b.q.weight[h * hd : (h + 1) * hd] = qk * wk + 0.3 * b.q.weight[h * hd : (h + 1) * hd]
            if vo:
                for h in range(c.heads):
                    g = h // rep
                    wv = b.v.weight[g * hd : (g + 1) * hd]  # [hd, dim]
                    b.o.weight[:, h * hd : (h + 1) * hd] = vo * wv.t() * (hd**-0.5) / rep

    def hidden(
        self,
        tokens,
        pos,
        seg,
        taps: list | None = None,
        atts: list | None = None,
        att_layer: int = -1,
        targets=None,
    ):
        """Final-normed hidden states [B,T,dim]; `taps`, when given, receives every layer's
        output residual (for training-time probes), `atts` layer `att_layer`'s attention
        probabilities [B,heads,T,T] and per-head outputs before W_o [B,heads,T,head_dim].
        With `targets` (t_batch, t_pos): only those positions' states [N, dim], the same
        numbers at about a third less work (the last layer runs only there); then `taps` holds
        every layer but the last, and `atts` may not ask for the last."""
        x = self.embed(tokens)
        bias = attention_bias(seg)
        last = len(self.blocks) - 1
        rows = None
        if targets is not None:
            if atts is not None and att_layer % len(self.blocks) == last:
                raise ValueError("hidden: targets leave the last layer's attention uncomputed")
            rows = query_rows(targets[0], targets[1], tokens.shape[0])
        for n, b in enumerate(self.blocks):
            x = b(x, pos, bias, atts if n == att_layer else None, rows if n == last else None)
            if taps is not None and (rows is None or n < last):
                taps.append(x)
        if rows is not None:
            x = x[targets[0], rows[1]]
        return self.norm(x)

    def head(self, h):
        w = self.embed.weight if self.out is None else self.out.weight
        return h @ w.t()

    def logits(self, tokens, pos, seg):
        """Shifted logits for every position, as the runtime reports them: row i predicts
        token i (computed from hidden state i-1; row 0 repeats row 0's unshifted logits, as Dream does)."""
        z = self.head(self.hidden(tokens, pos, seg))
        return torch.cat([z[:, :1], z[:, :-1]], dim=1)

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())
