#!/usr/bin/env python3
"""Export a peft LoRA of a Llama-architecture model as a llama.cpp-convention adapter GGUF.

  export_adapter.py PEFT_DIR --out F.gguf (--base BASE.gguf | --n-head N --n-head-kv N)

PEFT_DIR is what peft's `save_pretrained` wrote (adapter_config.json and
adapter_model.safetensors or adapter_model.bin). From Python: `export(state_dict, alpha, rank,
out_path, n_head=..., n_head_kv=...)` takes a state dict of lora_A / lora_B tensors (peft's
saved keys, or a live PeftModel's state_dict() with its adapter name in them).

The file: general.type = "adapter", adapter.type = "lora", adapter.lora.alpha (float32),
general.architecture; for every adapted projection of layer N, `blk.N.<name>.weight.lora_a`
(torch A [r, n_in], GGUF ne [n_in, r]) and `.lora_b` (torch B [n_out, r], ne [r, n_out]),
stored as F32. The runtime applies W' x = W x + (alpha / r) B (A x).

llama.cpp's HF -> GGUF converter permutes the rows of q_proj and k_proj (per head, the two
rotary halves interleaved), and the base GGUF carries that layout; B's rows are the output
rows, so B of q and k gets the same permutation here (A, on the input side, does not).
Checked on SmolLM2-135M-Instruct: permute(HF q_proj) equals the GGUF's attn_q exactly.

With --base, the base GGUF gives the architecture and head counts and every adapted tensor's
shape is checked against it. Problems exit 2 with one line on stderr.
"""

import argparse
import json
import os
import re
import sys

import numpy as np

# HF Llama module name -> llama.cpp tensor name.
MODULES = {
    "q_proj": "attn_q",
    "k_proj": "attn_k",
    "v_proj": "attn_v",
    "o_proj": "attn_output",
    "gate_proj": "ffn_gate",
    "up_proj": "ffn_up",
    "down_proj": "ffn_down",
}
# ...layers.N.(self_attn|mlp).MODULE.lora_(A|B)[.adapter_name].weight
_KEY = re.compile(r"(?:^|\.)layers\.(\d+)\.(?:self_attn|mlp)\.(\w+)\.lora_([AB])(?:\.([\w-]+))?\.weight$")


class ExportError(ValueError):
    pass


def permute_rows(w, n_head):
    """HF row order -> GGUF row order of a q/k projection's output rows (llama.cpp's layout):
    within each head, row 2i + j of the GGUF is row j * head_dim / 2 + i of the HF model."""
    rows = w.shape[0]
    if rows % n_head or (rows // n_head) % 2:
        raise ExportError(f"{rows} rows do not split into {n_head} heads of even size")
    hd = rows // n_head
    return w.reshape(n_head, 2, hd // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _numpy(t):
    if hasattr(t, "detach"):
        t = t.detach().cpu().float().numpy()
    return np.ascontiguousarray(np.asarray(t, dtype=np.float32))


def collect_pairs(state_dict):
    """{(layer, gguf name): {"A": array, "B": array}} from the LoRA keys of a state dict.
    Keys without "lora_" (base weights of a live model) are skipped; other LoRA keys (embedding
    LoRA, lm_head, DoRA magnitudes) are errors, since the adapter format cannot carry them."""
    found = []  # (key, layer, module, "A" | "B", value)
    names = set()  # adapter names in the keys (a live model's "default"; none when saved)
    for key, value in state_dict.items():
        if "lora_" not in key:
            continue
        m = _KEY.search(key)
        if not m or m.group(2) not in MODULES:
            raise ExportError(f"{key}: not a LoRA of a Llama projection ({', '.join(MODULES)})")
        names.add(m.group(4))
        found.append((key, int(m.group(1)), m.group(2), m.group(3), value))
    if len(names) > 1:
        raise ExportError(f"the state dict holds several adapters ({sorted(map(str, names))})")
    pairs = {}
    for key, layer, module, which, value in found:
        slot = pairs.setdefault((layer, MODULES[module]), {})
        if which in slot:
            raise ExportError(f"{key}: a second lora_{which} for layer {layer} {module}")
        slot[which] = _numpy(value)
    if not pairs:
        raise ExportError("the state dict holds no lora_A / lora_B weights")
    for (layer, name), slot in sorted(pairs.items()):
        for which in "AB":
            if which not in slot:
                raise ExportError(f"layer {layer} {name}: lora_{which} is missing")
    return pairs


def _base_info(base_path):
    from gguf import GGUFReader

    r = GGUFReader(base_path)

    def scalar(key):
        f = r.fields.get(key)
        if f is None:
            raise ExportError(f"{base_path}: no {key}")
        v = f.parts[f.data[0]]
        return bytes(v).decode("utf-8") if f.types[0].name == "STRING" else int(v[0])

    arch = scalar("general.architecture")
    n_head = scalar(f"{arch}.attention.head_count")
    kv_key = f"{arch}.attention.head_count_kv"
    n_head_kv = scalar(kv_key) if kv_key in r.fields else n_head
    # GGUF ne order: [n_in, n_out]
    shapes = {t.name: [int(d) for d in t.shape] for t in r.tensors}
    return arch, n_head, n_head_kv, shapes


def export(
    state_dict,
    alpha,
    rank,
    out_path,
    base_gguf_arch="llama",
    n_head=None,
    n_head_kv=None,
    base_shapes=None,
    dtype="f32",
    metadata=None,
):
    """Write the adapter GGUF. rank: every pair's rank must equal it (None: any, per pair).
    n_head / n_head_kv: the base's head counts (needed when q_proj / k_proj are adapted).
    base_shapes: {tensor name: GGUF ne} of the base, to check every adapted tensor against.
    dtype: "f32" or "f16" (half the bytes; the runtime widens to float32 at load).
    metadata: more string keys to write ({key: value}, e.g. the prompt contract's meadow.prompt.*)."""
    import gguf

    alpha = float(alpha)
    if not np.isfinite(alpha):
        raise ExportError(f"alpha {alpha} is not finite")
    if base_gguf_arch != "llama":
        raise ExportError(f"architecture {base_gguf_arch}: only llama's q/k layout is known here")
    if dtype not in ("f32", "f16"):
        raise ExportError(f"dtype {dtype}: f32 or f16")
    n_head_kv = n_head_kv or n_head
    pairs = collect_pairs(state_dict)
    tensors = []  # everything is checked before the file is opened
    for (layer, name), slot in sorted(pairs.items()):
        a, b = slot["A"], slot["B"]
        where = f"layer {layer} {name}"
        if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[1]:
            raise ExportError(f"{where}: lora_A {a.shape} and lora_B {b.shape} do not pair")
        if rank is not None and a.shape[0] != rank:
            raise ExportError(f"{where}: rank {a.shape[0]}, expected {rank}")
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            raise ExportError(f"{where}: non-finite values")
        if name in ("attn_q", "attn_k"):
            heads = n_head if name == "attn_q" else n_head_kv
            if not heads:
                raise ExportError(f"{where}: the head counts are needed to permute q/k rows")
            try:
                b = permute_rows(b, heads)
            except ExportError as e:
                raise ExportError(f"{where}: {e}") from None
        tensor = f"blk.{layer}.{name}.weight"
        if base_shapes is not None:
            want = base_shapes.get(tensor)
            if want is None:
                raise ExportError(f"{tensor}: not in the base model")
            if want != [a.shape[1], b.shape[0]]:
                raise ExportError(f"{tensor}: base ne {want}, LoRA maps {a.shape[1]} -> {b.shape[0]}")
        cast = np.float16 if dtype == "f16" else np.float32
        tensors.append((tensor + ".lora_a", np.ascontiguousarray(a, dtype=cast)))
        tensors.append((tensor + ".lora_b", np.ascontiguousarray(b, dtype=cast)))
    # Written beside the target and renamed onto it: a reader never maps a half-written file.
    tmp = f"{out_path}.partial-{os.getpid()}"
    w = gguf.GGUFWriter(tmp, base_gguf_arch)
    w.add_type(gguf.GGUFType.ADAPTER)
    w.add_string(gguf.Keys.Adapter.TYPE, "lora")
    w.add_float32(gguf.Keys.Adapter.LORA_ALPHA, alpha)
    for key, value in (metadata or {}).items():
        w.add_string(key, value)
    for tname, arr in tensors:
        w.add_tensor(tname, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, out_path)
    return len(pairs)


def load_peft_dir(path):
    """(state_dict, alpha, rank) of a peft save_pretrained directory. rslora is folded into
    alpha (its scale alpha / sqrt(r) is llama.cpp's alpha' / r with alpha' = alpha sqrt(r))."""
    cfg_path = os.path.join(path, "adapter_config.json")
    if not os.path.isfile(cfg_path):
        raise ExportError(f"{path}: no adapter_config.json (not a peft save_pretrained folder)")
    with open(cfg_path) as f:
        cfg = json.load(f)
    if cfg.get("peft_type") != "LORA":
        raise ExportError(f"{path}: peft_type {cfg.get('peft_type')!r}, expected 'LORA'")
    for key in ("use_dora", "fan_in_fan_out"):
        if cfg.get(key):
            raise ExportError(f"{path}: {key} is not expressible as a llama.cpp LoRA")
    for key in ("rank_pattern", "alpha_pattern"):
        if cfg.get(key):
            raise ExportError(f"{path}: a per-module {key} is not supported (one alpha, one r)")
    rank, alpha = int(cfg["r"]), float(cfg["lora_alpha"])
    if cfg.get("use_rslora"):
        alpha *= float(np.sqrt(rank))
    st = os.path.join(path, "adapter_model.safetensors")
    if os.path.isfile(st):
        from safetensors.numpy import load_file

        sd = load_file(st)
    else:
        import torch

        binp = os.path.join(path, "adapter_model.bin")
        if not os.path.isfile(binp):
            raise ExportError(f"{path}: no adapter_model.safetensors or adapter_model.bin")
        sd = torch.load(binp, map_location="cpu")
    return sd, alpha, rank


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("peft_dir")
    p.add_argument("--out", required=True)
    p.add_argument("--base", help="the base GGUF: architecture, head counts, shapes to check")
    p.add_argument("--n-head", type=int)
    p.add_argument("--n-head-kv", type=int)
    a = p.parse_args(argv)
    try:
        sd, alpha, rank = load_peft_dir(a.peft_dir)
        arch, n_head, n_head_kv, shapes = "llama", a.n_head, a.n_head_kv, None
        if a.base:
            arch, n_head, n_head_kv, shapes = _base_info(a.base)
        elif not n_head:
            raise ExportError("give --base BASE.gguf or --n-head (and --n-head-kv)")
        n = export(sd, alpha, rank, a.out, arch, n_head, n_head_kv, shapes)
    except (ExportError, OSError, KeyError) as e:
        print(f"export_adapter: {e}", file=sys.stderr)
        return 2
    print(f"{a.out}: {n} LoRA pairs, alpha {alpha:g}, rank {rank}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
