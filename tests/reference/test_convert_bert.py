"""tools/convert_bert.py on a tiny hand-made Hugging Face BERT (config.json, tokenizer.json,
model.safetensors written here with NumPy): llama.cpp's bert keys, tensor names and shapes,
the phantom-space vocabulary, the bytes of every tensor, extra heads, the three source forms,
and the refusals. Debian python3 + NumPy; no model needed."""
import json
import os
import struct
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import convert_bert  # noqa: E402
from gguf_py import gguf_file as gf  # noqa: E402

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "##s", "world", "[unused0]"]
CONFIG = {"model_type": "bert", "hidden_act": "gelu", "hidden_size": 8, "num_hidden_layers": 2,
          "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 10,
          "type_vocab_size": 2, "layer_norm_eps": 1e-12, "position_embedding_type": "absolute",
          "_name_or_path": "tiny"}


def tokenizer_json(**normalizer):
    norm = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
            "strip_accents": None, "lowercase": True}
    norm.update(normalizer)
    special = lambda i: {"id": i, "content": VOCAB[i], "special": True, "normalized": False,  # noqa
                         "single_word": False, "lstrip": False, "rstrip": False}
    seq = lambda s, t: {"Sequence": {"id": s, "type_id": t}}  # noqa: E731
    tok = lambda s, t: {"SpecialToken": {"id": s, "type_id": t}}  # noqa: E731
    return {
        "added_tokens": [special(i) for i in range(5)],
        "normalizer": norm,
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0)],
            "pair": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0), seq("B", 1),
                     tok("[SEP]", 1)],
        },
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100,
                  "vocab": {t: i for i, t in enumerate(VOCAB)}},
    }


def hf_tensors(prefix=""):
    rng = np.random.default_rng(0)
    e, f = CONFIG["hidden_size"], CONFIG["intermediate_size"]
    shapes = {"embeddings.word_embeddings.weight": (len(VOCAB), e),
              "embeddings.token_type_embeddings.weight": (2, e),
              "embeddings.position_embeddings.weight": (10, e),
              "embeddings.LayerNorm.weight": (e,), "embeddings.LayerNorm.bias": (e,),
              "pooler.dense.weight": (e, e), "pooler.dense.bias": (e,)}
    for i in range(CONFIG["num_hidden_layers"]):
        b = f"encoder.layer.{i}."
        for p in ("attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense"):
            shapes[b + p + ".weight"], shapes[b + p + ".bias"] = (e, e), (e,)
        for p in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[b + p + ".weight"], shapes[b + p + ".bias"] = (e,), (e,)
        shapes[b + "intermediate.dense.weight"], shapes[b + "intermediate.dense.bias"] = (f, e), (f,)
        shapes[b + "output.dense.weight"], shapes[b + "output.dense.bias"] = (e, f), (e,)
    out = {prefix + k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    out[prefix + "embeddings.position_ids"] = np.arange(10, dtype=np.int64)[None]
    return out


def safetensors_bytes(tensors):
    header, blobs, at = {"__metadata__": {"format": "pt"}}, [], 0
    for name, a in tensors.items():
        raw = a.tobytes()
        header[name] = {"dtype": {np.float32: "F32", np.int64: "I64"}[a.dtype.type],
                        "shape": list(a.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def write_source(d, tok=None, tensors=None, config=None, pooling=True):
    d = Path(d)
    (d / "config.json").write_text(json.dumps(config or CONFIG))
    (d / "tokenizer.json").write_text(json.dumps(tok or tokenizer_json()))
    (d / "model.safetensors").write_bytes(safetensors_bytes(tensors or hf_tensors()))
    if pooling:
        (d / "1_Pooling").mkdir(exist_ok=True)
        (d / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True}))
    return d


class ConvertBertTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        (self.dir / "src_dir").mkdir()
        self.src = write_source(self.dir / "src_dir")

    def tearDown(self):
        self.tmp.cleanup()

    def convert(self, src=None, **kw):
        out = self.dir / "out.gguf"
        convert_bert.convert(src or self.src, out, **kw)
        return gf.Reader(str(out))

    def test_keys_vocabulary_and_tensors(self):
        r = self.convert()
        m = r.meta
        self.assertEqual(m["general.architecture"], "bert")
        for key, want in (("bert.embedding_length", 8), ("bert.block_count", 2),
                          ("bert.attention.head_count", 2), ("bert.feed_forward_length", 16),
                          ("bert.context_length", 10), ("bert.pooling_type", 1),
                          ("tokenizer.ggml.token_type_count", 2),
                          ("tokenizer.ggml.cls_token_id", 2),
                          ("tokenizer.ggml.seperator_token_id", 3),
                          ("tokenizer.ggml.padding_token_id", 0),
                          ("tokenizer.ggml.unknown_token_id", 1),
                          ("tokenizer.ggml.mask_token_id", 4)):
            self.assertEqual(m[key], want, key)
        self.assertFalse(m["bert.attention.causal"])
        self.assertAlmostEqual(m["bert.attention.layer_norm_epsilon"], 1e-12, delta=1e-18)
        self.assertEqual(m["tokenizer.ggml.model"], "bert")
        self.assertEqual(m["tokenizer.ggml.tokens"],
                         ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "\u2581hello", "s",
                          "\u2581world", "\u2581[unused0]"])
        self.assertEqual(m["tokenizer.ggml.token_type"], [3, 3, 3, 3, 3, 1, 1, 1, 1])
        src = hf_tensors()
        names = convert_bert.tensor_names(2)
        self.assertEqual(set(r.tensors), set(names.values()))  # pooler, position_ids left out
        for hf, gg in names.items():
            dims, tname, _ = r.tensors[gg]
            self.assertEqual(dims, list(reversed(src[hf].shape)), gg)
            self.assertEqual(tname, "F32")
            np.testing.assert_array_equal(r.tensor(gg), src[hf], gg)

    def test_f16_matrices_f32_vectors(self):
        r = self.convert(type_name="F16")
        self.assertEqual(r.tensors["blk.0.attn_q.weight"][1], "F16")
        self.assertEqual(r.tensors["token_embd.weight"][1], "F16")
        self.assertEqual(r.tensors["blk.0.attn_q.bias"][1], "F32")
        want = hf_tensors()["encoder.layer.0.attention.self.query.weight"]
        np.testing.assert_allclose(r.tensor("blk.0.attn_q.weight"), want, rtol=1e-3, atol=1e-4)

    def test_extra_heads_and_keys(self):
        head = np.arange(6, dtype=np.float32).reshape(2, 3)
        r = self.convert(extra_tensors=[("reader.head.weight", head)],
                         extra_metadata=[("reader.version", gf.U32, 1)])
        self.assertEqual(r.tensors["reader.head.weight"][0], [3, 2])
        np.testing.assert_array_equal(r.tensor("reader.head.weight"), head)
        self.assertEqual(r.meta["reader.version"], 1)
        with self.assertRaises(convert_bert.ConvertError):
            self.convert(extra_tensors=[("token_embd.weight", head)])

    def test_edit_changes_the_encoder_tensors_before_they_are_written(self):
        def edit(tensors):
            self.assertIn("encoder.layer.0.attention.self.query.weight", tensors)  # HF names
            out = dict(tensors)
            out["encoder.layer.0.attention.self.query.weight"] = np.ones((8, 8), np.float32)
            return out

        r = self.convert(edit=edit)
        np.testing.assert_array_equal(r.tensor("blk.0.attn_q.weight"), np.ones((8, 8), np.float32))
        np.testing.assert_array_equal(r.tensor("blk.1.attn_q.weight"),
                                      hf_tensors()["encoder.layer.1.attention.self.query.weight"])
        with self.assertRaises(convert_bert.ConvertError):  # an edit that drops one is refused
            self.convert(edit=lambda t: {k: v for k, v in t.items() if "layer.1.output.dense" not in k})

    def test_zip_wheel_and_prefixed_names_give_the_same_file(self):
        self.convert()
        want = (self.dir / "out.gguf").read_bytes()
        z = self.dir / "model.zip"
        with zipfile.ZipFile(z, "w") as zf:
            for p in self.src.rglob("*"):
                if p.is_file():
                    zf.write(p, p.relative_to(self.src).as_posix())
        self.convert(z)
        self.assertEqual((self.dir / "out.gguf").read_bytes(), want)
        wheel = self.dir / "pkg-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as wf:
            wf.write(z, "pkg/model.zip")
        self.convert(f"{wheel}:pkg/model.zip")
        self.assertEqual((self.dir / "out.gguf").read_bytes(), want)
        prefixed = {k: v for k, v in hf_tensors("bert.").items()}
        prefixed["classifier.weight"] = np.zeros((2, 8), np.float32)  # a task head: not ours
        (self.dir / "task").mkdir()
        self.convert(write_source(self.dir / "task", tensors=prefixed))
        self.assertEqual((self.dir / "out.gguf").read_bytes(), want)

    def test_refuses_what_the_runtime_would_tokenize_differently(self):
        cases = {
            "cased": dict(tok=tokenizer_json(lowercase=False)),
            "accents kept": dict(tok=tokenizer_json(strip_accents=False)),
            "long words": dict(tok={**tokenizer_json(), "model": {
                **tokenizer_json()["model"], "max_input_chars_per_word": 200}}),
            "unknown tensor": dict(tensors={**hf_tensors(), "extra.weight": np.zeros(3, np.float32)}),
            "missing tensor": dict(tensors={k: v for k, v in hf_tensors().items()
                                            if k != "encoder.layer.1.output.dense.bias"}),
            "tanh gelu": dict(config={**CONFIG, "hidden_act": "gelu_new"}),
        }
        for name, kw in cases.items():
            d = self.dir / name.replace(" ", "_")
            d.mkdir()
            with self.subTest(name), self.assertRaises(convert_bert.ConvertError):
                self.convert(write_source(d, **kw))
        self.assertEqual(convert_bert.main([str(self.dir / "cased"), str(self.dir / "x.gguf")]), 2)


if __name__ == "__main__":
    unittest.main()
