"""train/reader/export.py on a tiny hand-made BERT source (tests/reference/test_convert_bert.py's):
the reader GGUF's heads and reader.* keys for both readings, a delta added to the base (low-rank
factors and whole tensors), and the refusals. Debian python3 + NumPy; no model needed."""

import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference"))
import test_convert_bert as tiny  # noqa: E402

from train.reader import export  # noqa: E402
from train.reader.data import JUDGE_TAGS, OPS, RULE_TAGS, TAGS  # noqa: E402

gf = export.gf


class ExportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        (self.dir / "src").mkdir()
        self.src = str(tiny.write_source(self.dir / "src"))
        self.out = str(self.dir / "reader.gguf")

    def tearDown(self):
        self.tmp.cleanup()

    def test_random_readers_have_their_reading_heads_and_keys(self):
        for reading, tags in (("option", TAGS), ("rule", RULE_TAGS)):
            with self.subTest(reading):
                heads = export.random_heads(8, 0, reading)
                export.write(self.src, self.out, heads, reading, "F32")
                r = gf.Reader(self.out)
                m = r.meta
                self.assertEqual(m["reader.version"], export.VERSION)
                self.assertEqual(m["reader.judge"], "late")
                self.assertEqual(m["reader.reading"], reading)
                self.assertEqual(m["reader.query_format"], "{letter}: {text}")
                self.assertEqual(m["reader.listing_separator"], "; ")
                self.assertEqual(m["reader.tags"], tags)
                self.assertEqual(m["reader.ops"], OPS)
                self.assertEqual(m["reader.judge_tags"], JUDGE_TAGS)
                self.assertEqual(m["reader.look.head_count"], 2)
                self.assertAlmostEqual(m["reader.look_norm.epsilon"], 1e-5, places=9)
                self.assertEqual(m["reader.max_tokens"], 256)
                names = export.heads(reading)
                self.assertEqual({n for n in r.tensors if n.startswith("reader.")}, set(names.values()))
                for torch_name, name in names.items():
                    np.testing.assert_array_equal(r.tensor(name), heads[torch_name], name)
                self.assertEqual(r.tensors["reader.judge.fc1.weight"][0], [40, 8])  # ggml order
                self.assertEqual(r.tensors["reader.look.in_proj.weight"][0], [8, 24])
                # the encoder is the base's, untouched
                want = tiny.hf_tensors()["encoder.layer.0.attention.self.query.weight"]
                np.testing.assert_array_equal(r.tensor("blk.0.attn_q.weight"), want)

    def delta(self, **over):
        rng = np.random.default_rng(1)
        d = {
            "meta.judge": np.array("late"),
            "meta.reading": np.array("option"),
            "bert.encoder.layer.0.attention.self.query.weight.u": rng.standard_normal((8, 2)).astype(
                np.float16
            ),
            "bert.encoder.layer.0.attention.self.query.weight.v": rng.standard_normal((2, 8)).astype(
                np.float16
            ),
            "bert.encoder.layer.1.output.dense.weight": rng.standard_normal((8, 16)).astype(np.float16),
            "bert.encoder.layer.1.output.LayerNorm.bias": rng.standard_normal(8).astype(np.float32),
        }
        for name, t in export.random_heads(8, 2, "option").items():
            d[f"head.{name}"] = t
        d.update(over)
        path = self.dir / "d.npz"
        np.savez_compressed(path, **d)
        return d, str(path)

    def test_build_adds_the_delta_to_the_base(self):
        d, path = self.delta()
        export.build(self.src, path, self.out)
        r = gf.Reader(self.out)
        base = tiny.hf_tensors()
        q = "encoder.layer.0.attention.self.query.weight"
        low_rank = d[f"bert.{q}.u"].astype(np.float32) @ d[f"bert.{q}.v"].astype(np.float32)
        np.testing.assert_allclose(r.tensor("blk.0.attn_q.weight"), base[q] + low_rank, rtol=1e-6)
        dense = "encoder.layer.1.output.dense.weight"
        np.testing.assert_allclose(
            r.tensor("blk.1.ffn_down.weight"), base[dense] + d[f"bert.{dense}"].astype(np.float32), rtol=1e-6
        )
        norm = "encoder.layer.1.output.LayerNorm.bias"
        np.testing.assert_allclose(r.tensor("blk.1.layer_output_norm.bias"), base[norm] + d[f"bert.{norm}"])
        np.testing.assert_array_equal(
            r.tensor("blk.1.attn_q.weight"), base["encoder.layer.1.attention.self.query.weight"]
        )
        np.testing.assert_array_equal(r.tensor("reader.tag.weight"), d["head.tag.weight"])
        self.assertEqual(r.meta["reader.reading"], "option")

    def test_refusals(self):
        cases = {
            "cross judge": {"meta.judge": np.array("cross")},
            "unknown tensor": {"bert.encoder.layer.9.output.dense.bias": np.zeros(8, np.float32)},
            "wrong shape": {"bert.encoder.layer.1.output.LayerNorm.bias": np.zeros(9, np.float32)},
            "head shape": {"head.tag.weight": np.zeros((3, 8), np.float32)},
        }
        for name, over in cases.items():
            with self.subTest(name), self.assertRaises(SystemExit):
                export.build(self.src, self.delta(**over)[1], self.out)


if __name__ == "__main__":
    unittest.main()
