"""A small GGUF v3 writer (streaming) and reader, from the GGUF specification.

Layout: "GGUF", u32 version, u64 tensor count, u64 metadata count, metadata key/values,
tensor infos (name, u32 n_dims, u64 dims[n] with dims[0] the row length, u32 type,
u64 offset into the data section), padding to the alignment, then the data section where
every tensor starts at a multiple of the alignment (general.alignment, default 32).
"""

import os
import struct

import numpy as np

from .quant import TYPES, TYPE_BY_ID, nbytes

# metadata value type ids
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
_SCALAR = {
    U8: "<B",
    I8: "<b",
    U16: "<H",
    I16: "<h",
    U32: "<I",
    I32: "<i",
    F32: "<f",
    BOOL: "<?",
    U64: "<Q",
    I64: "<q",
    F64: "<d",
}
_NP = {
    U8: np.uint8,
    I8: np.int8,
    U16: np.uint16,
    I16: np.int16,
    U32: np.uint32,
    I32: np.int32,
    F32: np.float32,
    U64: np.uint64,
    I64: np.int64,
    F64: np.float64,
}


def _str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _value(vtype, value):
    if vtype == STRING:
        return _str(value)
    if vtype == ARRAY:
        etype, items = value
        out = [struct.pack("<IQ", etype, len(items))]
        if etype in _NP:
            out.append(np.asarray(items, dtype=np.dtype(_NP[etype]).newbyteorder("<")).tobytes())
        else:
            out.extend(_value(etype, it) for it in items)
        return b"".join(out)
    return struct.pack(_SCALAR[vtype], value)


class Writer:
    """Collect metadata and tensor declarations, then stream tensor data in order:

    w = Writer(path); w.add(key, type, value); w.declare(name, dims, type_name)
    w.begin(); for each declared tensor in order: w.write(name, chunks); w.end()
    """

    def __init__(self, path, alignment=32):
        self.path = path
        self.alignment = alignment
        self.kv = []
        self.tensors = []  # (name, dims, type_name, offset, nbytes)
        self._next = 0
        self._f = None
        self._i = 0

    def add(self, key, vtype, value):
        self.kv.append((key, vtype, value))

    def declare(self, name, dims, type_name):
        n = int(np.prod(dims))
        size = nbytes(type_name, n)
        if dims[0] % TYPES[type_name][1]:
            raise ValueError(
                f"{name}: row length {dims[0]} is not a multiple of the {type_name} block size {TYPES[type_name][1]}"
            )
        self.tensors.append((name, list(dims), type_name, self._next, size))
        self._next += (size + self.alignment - 1) // self.alignment * self.alignment

    def begin(self):
        # Written under a temporary name and renamed at the end, so a reader (e.g. a parallel
        # test) never maps a half-written file.
        self._tmp = f"{self.path}.partial-{os.getpid()}"
        self._f = open(self._tmp, "wb")
        f = self._f
        f.write(b"GGUF" + struct.pack("<IQQ", 3, len(self.tensors), len(self.kv)))
        for key, vtype, value in self.kv:
            f.write(_str(key) + struct.pack("<I", vtype) + _value(vtype, value))
        for name, dims, type_name, offset, _ in self.tensors:
            f.write(_str(name) + struct.pack("<I", len(dims)))
            f.write(struct.pack(f"<{len(dims)}Q", *dims))
            f.write(struct.pack("<IQ", TYPES[type_name][0], offset))
        self._pad()

    def _pad(self):
        pos = self._f.tell()
        self._f.write(b"\0" * ((-pos) % self.alignment))

    def write(self, name, chunks):
        """Write the next declared tensor from an iterable of uint8 arrays / bytes."""
        tname, _, _, _, size = self.tensors[self._i]
        if tname != name:
            raise ValueError(f"write order: expected {tname}, got {name}")
        total = 0
        for c in chunks:
            mv = memoryview(np.ascontiguousarray(c)).cast("B")
            total += len(mv)
            self._f.write(mv)
        if total != size:
            raise ValueError(f"{name}: wrote {total} bytes, expected {size}")
        self._pad()
        self._i += 1

    def end(self):
        if self._i != len(self.tensors):
            raise ValueError("not every declared tensor was written")
        self._f.close()
        os.replace(self._tmp, self.path)


class Reader:
    """Reads the whole metadata and tensor table; tensor bytes are memory-mapped."""

    def __init__(self, path):
        self.path = path
        self.buf = np.memmap(path, dtype=np.uint8, mode="r")
        self.pos = 4
        if bytes(self.buf[0:4]) != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        version, n_t, n_kv = struct.unpack("<IQQ", self._take(20))
        if version != 3:
            raise ValueError(f"{path}: GGUF version {version}")
        self.meta = {}
        for _ in range(n_kv):
            key = self._string()
            (vtype,) = struct.unpack("<I", self._take(4))
            self.meta[key] = self._read_value(vtype)
        infos = []
        for _ in range(n_t):
            name = self._string()
            (nd,) = struct.unpack("<I", self._take(4))
            dims = list(struct.unpack(f"<{nd}Q", self._take(8 * nd)))
            ttype, off = struct.unpack("<IQ", self._take(12))
            infos.append((name, dims, TYPE_BY_ID[ttype], off))
        align = int(self.meta.get("general.alignment", 32))
        data = (self.pos + align - 1) // align * align
        self.tensors = {}
        for name, dims, tname, off in infos:
            self.tensors[name] = (dims, tname, data + off)

    def _take(self, n):
        b = bytes(self.buf[self.pos : self.pos + n])
        if len(b) != n:
            raise ValueError(f"{self.path}: truncated")
        self.pos += n
        return b

    def _string(self):
        (n,) = struct.unpack("<Q", self._take(8))
        return self._take(n).decode("utf-8")

    def _read_value(self, vtype):
        if vtype == STRING:
            return self._string()
        if vtype == ARRAY:
            etype, n = struct.unpack("<IQ", self._take(12))
            if etype in _NP:
                size = np.dtype(_NP[etype]).itemsize
                return np.frombuffer(self._take(size * n), dtype=_NP[etype]).tolist()
            return [self._read_value(etype) for _ in range(n)]
        fmt = _SCALAR[vtype]
        (v,) = struct.unpack(fmt, self._take(struct.calcsize(fmt)))
        return v

    def tensor(self, name):
        """Dequantized float32 array shaped [rows, cols] (numpy order: dims reversed)."""
        from .quant import dequantize

        dims, tname, start = self.tensors[name]
        n = int(np.prod(dims))
        raw = self.buf[start : start + nbytes(tname, n)]
        return dequantize(tname, raw, n).reshape(list(reversed(dims)))


def add_decoder_header(
    w, arch, name, *, context, embedding, blocks, ffn, heads, kv_heads, rope_base, head_dim, eps, vocab
):
    """The keys a llama-family decoder file opens with, in llama.cpp's order: general.* (alignment
    32), then `arch`'s hyperparameters, the vocabulary size last."""
    w.add("general.architecture", STRING, arch)
    w.add("general.name", STRING, name)
    w.add("general.alignment", U32, 32)
    w.add(f"{arch}.context_length", U32, context)
    w.add(f"{arch}.embedding_length", U32, embedding)
    w.add(f"{arch}.block_count", U32, blocks)
    w.add(f"{arch}.feed_forward_length", U32, ffn)
    w.add(f"{arch}.attention.head_count", U32, heads)
    w.add(f"{arch}.attention.head_count_kv", U32, kv_heads)
    w.add(f"{arch}.rope.freq_base", F32, rope_base)
    w.add(f"{arch}.rope.dimension_count", U32, head_dim)
    w.add(f"{arch}.attention.layer_norm_rms_epsilon", F32, eps)
    w.add(f"{arch}.vocab_size", U32, vocab)


def set_strings(src, dst, entries):
    """Copies GGUF `src` to `dst` with the string metadata `entries` ({key: text}) set: a key
    already there is replaced in place, a new one appended. The tensor data is copied byte for
    byte (offsets are relative to the data section, which moves only to stay aligned)."""
    r = Reader(src)
    r.pos = 24
    kv = []  # (key, raw bytes of the whole entry)
    n_kv = struct.unpack("<Q", bytes(r.buf[16:24]))[0]
    for _ in range(n_kv):
        start = r.pos
        key = r._string()
        (vtype,) = struct.unpack("<I", r._take(4))
        r._read_value(vtype)
        kv.append((key, bytes(r.buf[start : r.pos])))
    infos_start = r.pos
    n_t = struct.unpack("<Q", bytes(r.buf[8:16]))[0]
    for _ in range(n_t):
        r._string()
        (nd,) = struct.unpack("<I", r._take(4))
        r._take(8 * nd + 12)
    infos = bytes(r.buf[infos_start : r.pos])
    align = int(r.meta.get("general.alignment", 32))
    data_start = (r.pos + align - 1) // align * align
    new = dict(entries)
    out = []
    for key, raw in kv:
        out.append(_str(key) + struct.pack("<I", STRING) + _str(new.pop(key)) if key in new else raw)
    out.extend(_str(k) + struct.pack("<I", STRING) + _str(v) for k, v in new.items())
    head = b"GGUF" + struct.pack("<IQQ", 3, n_t, len(out)) + b"".join(out) + infos
    head += b"\0" * ((-len(head)) % align)
    tmp = f"{dst}.partial-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(head)
        f.write(memoryview(r.buf[data_start:]))
    os.replace(tmp, dst)
