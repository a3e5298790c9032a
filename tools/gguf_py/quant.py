"""NumPy quantizers and dequantizers for the ggml tensor types meadow-mind reads.

Written from the block layouts of the GGUF/ggml format (independent of the C++ code):

  F32, F16, BF16   plain little-endian scalars
  Q8_0   32 elems: f16 d, int8 q[32]                         x = d*q
  Q4_0   32 elems: f16 d, u8 qs[16] (lo nibble = elem i, hi = elem i+16)   x = d*(q-8)
  Q4_1   32 elems: f16 d, f16 m, u8 qs[16] (as Q4_0)           x = d*q + m
  Q4_K  256 elems: f16 d, f16 dmin, u8 scales[12] (8 six-bit scales + 8 six-bit mins),
                   u8 qs[128] (per 64-elem chunk: lo nibbles = first 32, hi = next 32)
                   x = d*sc[j]*q - dmin*m[j] for the 32-elem sub-block j
  Q6_K  256 elems: u8 ql[128], u8 qh[64], i8 scales[16], f16 d
                   x = d*scales[j]*(q-32) for the 16-elem sub-block j
All quantizers work on a flat float array whose length is a multiple of the block size and
return raw bytes (uint8 array); dequantizers do the reverse and return float32.
"""
import numpy as np

# type name -> (ggml type id, elements per block, bytes per block)
TYPES = {
    "F32": (0, 1, 4),
    "F16": (1, 1, 2),
    "Q4_0": (2, 32, 18),
    "Q4_1": (3, 32, 20),
    "Q8_0": (8, 32, 34),
    "Q4_K": (12, 256, 144),
    "Q6_K": (14, 256, 210),
    "BF16": (30, 1, 2),
}
TYPE_BY_ID = {v[0]: k for k, v in TYPES.items()}


def nbytes(type_name, n):
    _, be, bb = TYPES[type_name]
    if n % be:
        raise ValueError(f"{type_name}: {n} elements is not a multiple of the block size {be}")
    return n // be * bb


def _f16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16)


# ---------------------------------------------------------------- plain types
def _bf16_bits(x):
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    # round to nearest even on the dropped 16 bits
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


# ---------------------------------------------------------------- Q8_0
def _q8_0(x):
    b = x.reshape(-1, 32)
    d = _f16(np.abs(b).max(axis=1) / 127.0)
    df = d.astype(np.float32)
    inv = np.divide(1.0, df, out=np.zeros_like(df), where=df != 0)
    q = np.clip(np.rint(b * inv[:, None]), -127, 127).astype(np.int8)
    out = np.empty((b.shape[0], 34), np.uint8)
    out[:, 0:2] = d.view(np.uint8).reshape(-1, 2)
    out[:, 2:] = q.view(np.uint8)
    return out


def _dq8_0(raw):
    r = raw.reshape(-1, 34)
    d = r[:, 0:2].copy().view(np.float16).astype(np.float32)
    q = r[:, 2:].view(np.int8).astype(np.float32)
    return d * q


# ---------------------------------------------------------------- Q4_0
def _q4_0(x):
    b = x.reshape(-1, 32)
    idx = np.abs(b).argmax(axis=1)
    signed_max = b[np.arange(b.shape[0]), idx]
    d = _f16(signed_max / -8.0)
    df = d.astype(np.float32)
    inv = np.divide(1.0, df, out=np.zeros_like(df), where=df != 0)
    q = np.clip(np.rint(b * inv[:, None]) + 8, 0, 15).astype(np.uint8)
    out = np.empty((b.shape[0], 18), np.uint8)
    out[:, 0:2] = d.view(np.uint8).reshape(-1, 2)
    out[:, 2:] = q[:, :16] | (q[:, 16:] << 4)
    return out


def _dq4_0(raw):
    r = raw.reshape(-1, 18)
    d = r[:, 0:2].copy().view(np.float16).astype(np.float32)
    qs = r[:, 2:]
    q = np.concatenate([qs & 0xF, qs >> 4], axis=1).astype(np.float32) - 8.0
    return d * q


# ---------------------------------------------------------------- Q4_1
def _q4_1(x):
    b = x.reshape(-1, 32)
    lo, hi = b.min(axis=1), b.max(axis=1)
    m = _f16(lo)
    m = np.where(m.astype(np.float32) > lo, np.nextafter(m, np.float16(-np.inf)), m)
    mf = m.astype(np.float32)
    d = _f16((hi - mf) / 15.0)
    d = np.where(d.astype(np.float32) * 15.0 < hi - mf, np.nextafter(d, np.float16(np.inf)), d)
    df = d.astype(np.float32)
    inv = np.divide(1.0, df, out=np.zeros_like(df), where=df != 0)
    q = np.clip(np.rint((b - mf[:, None]) * inv[:, None]), 0, 15).astype(np.uint8)
    out = np.empty((b.shape[0], 20), np.uint8)
    out[:, 0:2] = d.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 2:4] = m.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 4:] = q[:, :16] | (q[:, 16:] << 4)
    return out


def _dq4_1(raw):
    r = raw.reshape(-1, 20)
    d = r[:, 0:2].copy().view(np.float16).astype(np.float32)
    m = r[:, 2:4].copy().view(np.float16).astype(np.float32)
    qs = r[:, 4:]
    q = np.concatenate([qs & 0xF, qs >> 4], axis=1).astype(np.float32)
    return d * q + m


# ---------------------------------------------------------------- Q4_K
def _pack_k_scales(sc, m):
    """sc, m: [nb, 8] six-bit values -> [nb, 12] bytes."""
    s = np.zeros((sc.shape[0], 12), np.uint8)
    s[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)
    s[:, 4:8] = (m[:, 0:4] & 63) | ((m[:, 4:8] >> 4) << 6)
    s[:, 8:12] = (sc[:, 4:8] & 0xF) | ((m[:, 4:8] & 0xF) << 4)
    return s


def _unpack_k_scales(s):
    s = s.astype(np.uint8)
    sc = np.empty((s.shape[0], 8), np.uint8)
    m = np.empty((s.shape[0], 8), np.uint8)
    sc[:, 0:4] = s[:, 0:4] & 63
    m[:, 0:4] = s[:, 4:8] & 63
    sc[:, 4:8] = (s[:, 8:12] & 0xF) | ((s[:, 0:4] >> 6) << 4)
    m[:, 4:8] = (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)
    return sc, m


def _q4_k(x):
    b = x.reshape(-1, 8, 32)
    nb = b.shape[0]
    lo = np.minimum(b.min(axis=2), 0.0)  # sub-block minimum (never above zero)
    hi = b.max(axis=2)
    scale = (hi - lo) / 15.0
    mins = -lo
    d = _f16(scale.max(axis=1) / 63.0)
    dmin = _f16(mins.max(axis=1) / 63.0)
    df, dminf = d.astype(np.float32), dmin.astype(np.float32)
    inv_d = np.divide(1.0, df, out=np.zeros_like(df), where=df != 0)
    inv_dm = np.divide(1.0, dminf, out=np.zeros_like(dminf), where=dminf != 0)
    sc = np.clip(np.rint(scale * inv_d[:, None]), 0, 63).astype(np.uint8)
    m = np.clip(np.rint(mins * inv_dm[:, None]), 0, 63).astype(np.uint8)
    step = df[:, None] * sc.astype(np.float32)  # [nb, 8]
    off = dminf[:, None] * m.astype(np.float32)
    inv_step = np.divide(1.0, step, out=np.zeros_like(step), where=step != 0)
    q = np.clip(np.rint((b + off[:, :, None]) * inv_step[:, :, None]), 0, 15).astype(np.uint8)
    q = q.reshape(nb, 4, 2, 32)  # chunk of 64 = two sub-blocks
    qs = (q[:, :, 0, :] | (q[:, :, 1, :] << 4)).reshape(nb, 128)
    out = np.empty((nb, 144), np.uint8)
    out[:, 0:2] = d.view(np.uint8).reshape(-1, 2)
    out[:, 2:4] = dmin.view(np.uint8).reshape(-1, 2)
    out[:, 4:16] = _pack_k_scales(sc, m)
    out[:, 16:] = qs
    return out


def _dq4_k(raw):
    r = raw.reshape(-1, 144)
    nb = r.shape[0]
    d = r[:, 0:2].copy().view(np.float16).astype(np.float32)
    dmin = r[:, 2:4].copy().view(np.float16).astype(np.float32)
    sc, m = _unpack_k_scales(r[:, 4:16])
    qs = r[:, 16:].reshape(nb, 4, 32)
    q = np.stack([qs & 0xF, qs >> 4], axis=2).reshape(nb, 8, 32).astype(np.float32)
    y = d[:, :, None] * sc[:, :, None] * q - dmin[:, :, None] * m[:, :, None]
    return y.reshape(-1, 256)


# ---------------------------------------------------------------- Q6_K
def _q6_k(x):
    b = x.reshape(-1, 16, 16)
    nb = b.shape[0]
    scale = np.abs(b).max(axis=2) / 31.0  # [nb, 16]
    d = _f16(scale.max(axis=1) / 127.0)
    df = d.astype(np.float32)
    inv_d = np.divide(1.0, df, out=np.zeros_like(df), where=df != 0)
    sc = np.clip(np.rint(scale * inv_d[:, None]), -128, 127).astype(np.int8)
    step = df[:, None] * sc.astype(np.float32)
    inv_step = np.divide(1.0, step, out=np.zeros_like(step), where=step != 0)
    q = (np.clip(np.rint(b * inv_step[:, :, None]), -32, 31) + 32).astype(np.uint8)
    q = q.reshape(nb, 2, 4, 32)  # two halves of 128, each four runs of 32
    q1, q2, q3, q4 = q[:, :, 0], q[:, :, 1], q[:, :, 2], q[:, :, 3]
    ql = np.concatenate([(q1 & 0xF) | ((q3 & 0xF) << 4), (q2 & 0xF) | ((q4 & 0xF) << 4)], axis=2)
    qh = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6)
    out = np.empty((nb, 210), np.uint8)
    out[:, 0:128] = ql.reshape(nb, 128)
    out[:, 128:192] = qh.reshape(nb, 64)
    out[:, 192:208] = sc.view(np.uint8)
    out[:, 208:210] = d.view(np.uint8).reshape(-1, 2)
    return out


def _dq6_k(raw):
    r = raw.reshape(-1, 210)
    nb = r.shape[0]
    ql = r[:, 0:128].reshape(nb, 2, 64)
    qh = r[:, 128:192].reshape(nb, 2, 32)
    sc = r[:, 192:208].copy().view(np.int8).astype(np.float32)
    d = r[:, 208:210].copy().view(np.float16).astype(np.float32).reshape(-1)
    q1 = (ql[:, :, 0:32] & 0xF) | ((qh & 3) << 4)
    q2 = (ql[:, :, 32:64] & 0xF) | (((qh >> 2) & 3) << 4)
    q3 = (ql[:, :, 0:32] >> 4) | (((qh >> 4) & 3) << 4)
    q4 = (ql[:, :, 32:64] >> 4) | (((qh >> 6) & 3) << 4)
    q = np.stack([q1, q2, q3, q4], axis=2).reshape(nb, 16, 16).astype(np.float32) - 32.0
    y = d[:, None, None] * sc[:, :, None] * q
    return y.reshape(-1, 256)


# ---------------------------------------------------------------- dispatch
def quantize(type_name, x):
    """Flat float array -> uint8 bytes of the type."""
    x = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    nbytes(type_name, x.size)  # validates the block multiple
    if type_name == "F32":
        return x.view(np.uint8)
    if type_name == "F16":
        return x.astype(np.float16).view(np.uint8)
    if type_name == "BF16":
        return _bf16_bits(x).view(np.uint8)
    fn = {"Q8_0": _q8_0, "Q4_0": _q4_0, "Q4_1": _q4_1, "Q4_K": _q4_k, "Q6_K": _q6_k}[type_name]
    return fn(x).reshape(-1)


def dequantize(type_name, raw, n):
    """uint8 bytes of the type -> flat float32 array of n elements."""
    raw = np.frombuffer(raw, dtype=np.uint8, count=nbytes(type_name, n))
    if type_name == "F32":
        return raw.view(np.float32).copy()
    if type_name == "F16":
        return raw.view(np.float16).astype(np.float32)
    if type_name == "BF16":
        return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    fn = {"Q8_0": _dq8_0, "Q4_0": _dq4_0, "Q4_1": _dq4_1, "Q4_K": _dq4_k, "Q6_K": _dq6_k}[type_name]
    return fn(raw).reshape(-1).astype(np.float32)


def random_blocks(type_name, n, rng, scale):
    """Random but valid encoded bytes for n elements: random quants, scales chosen so that
    values have roughly the given standard deviation. Fast path for huge bench fixtures."""
    _, be, bb = TYPES[type_name]
    nb = nbytes(type_name, n) // bb
    raw = rng.integers(0, 256, size=(nb, bb), dtype=np.uint8)
    h = lambda v: np.frombuffer(np.float16(v).tobytes(), np.uint8)
    if type_name == "Q8_0":
        raw[:, 0:2] = h(scale / 73.0)  # uniform int8 has std ~73.9
    elif type_name == "Q4_0":
        raw[:, 0:2] = h(scale / 4.6)  # uniform nibble-8 has std ~4.6
    elif type_name == "Q4_1":
        raw[:, 0:2] = h(scale / 4.6)
        raw[:, 2:4] = h(-7.5 * scale / 4.6)  # centres d*q + m on 0
    elif type_name == "Q4_K":
        raw[:, 0:2] = h(scale / (4.6 * 32))  # scales ~U(0,63): mean ~32
        raw[:, 2:4] = h(scale * 7.5 / (4.6 * 32))  # mean of d*sc*q, so values centre on 0
    elif type_name == "Q6_K":
        raw[:, 192:208] = 32  # all sub-block scales 32
        raw[:, 208:210] = h(scale / (18.5 * 32))  # uniform 6-bit-32 has std ~18.5
    else:
        raise ValueError(f"random_blocks: {type_name} is not a block type")
    return raw.reshape(-1)
