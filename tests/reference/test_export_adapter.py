"""train/small/export_adapter.py without a real model: the file it writes (keys, names, ne,
F32, q/k rows permuted, v not), both key styles of peft state dicts, a save_pretrained folder
(rslora folded into alpha), and every input it refuses (one line, exit 2 from the command).

    .venv/bin/python -m unittest tests/reference/test_export_adapter.py -v
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from gguf import GGUFReader  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402

from train.small import export_adapter as ea  # noqa: E402

N_EMBD, N_HEAD, N_HEAD_KV, HD, N_FF, RANK = 16, 4, 2, 4, 24, 3
SHAPES = {  # module -> (n_out, n_in)
    "q_proj": (N_HEAD * HD, N_EMBD),
    "k_proj": (N_HEAD_KV * HD, N_EMBD),
    "v_proj": (N_HEAD_KV * HD, N_EMBD),
    "o_proj": (N_EMBD, N_HEAD * HD),
    "gate_proj": (N_FF, N_EMBD),
    "up_proj": (N_FF, N_EMBD),
    "down_proj": (N_EMBD, N_FF),
}


def state_dict(layers=2, adapter_name=None, seed=0):
    rng = np.random.default_rng(seed)
    sd = {}
    tag = f".{adapter_name}" if adapter_name else ""
    for i in range(layers):
        for m, (n_out, n_in) in SHAPES.items():
            part = "self_attn" if m in ("q_proj", "k_proj", "v_proj", "o_proj") else "mlp"
            key = f"base_model.model.model.layers.{i}.{part}.{m}"
            sd[f"{key}.lora_A{tag}.weight"] = rng.standard_normal((RANK, n_in)).astype(np.float32)
            sd[f"{key}.lora_B{tag}.weight"] = rng.standard_normal((n_out, RANK)).astype(np.float32)
    return sd


def read(path):
    r = GGUFReader(path)

    def field(key):
        f = r.fields[key]
        v = f.parts[f.data[0]]
        return bytes(v).decode() if f.types[0].name == "STRING" else v

    tensors = {t.name: t for t in r.tensors}
    return field, tensors


def tensor_2d(t):
    return np.array(t.data).reshape(int(t.shape[1]), int(t.shape[0]))


class ExportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.dir.name, "a.gguf")

    def tearDown(self):
        self.dir.cleanup()

    def test_permute_rows_interleaves_each_heads_halves(self):
        w = np.arange(2 * 6, dtype=np.float32).reshape(2 * 6, 1)  # 2 heads of 6 rows
        got = ea.permute_rows(w, 2)[:, 0].tolist()
        self.assertEqual(got, [0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11])

    def test_file_layout(self):
        sd = state_dict()
        n = ea.export(sd, 6.0, RANK, self.out, n_head=N_HEAD, n_head_kv=N_HEAD_KV)
        self.assertEqual(n, 14)
        field, tensors = read(self.out)
        self.assertEqual(field("general.type"), "adapter")
        self.assertEqual(field("adapter.type"), "lora")
        self.assertEqual(field("general.architecture"), "llama")
        alpha = field("adapter.lora.alpha")
        self.assertEqual(alpha.dtype, np.float32)
        self.assertEqual(float(alpha[0]), 6.0)
        self.assertEqual(len(tensors), 28)
        for i in range(2):
            for m, gname in ea.MODULES.items():
                key = f"base_model.model.model.layers.{i}." + (
                    "self_attn" if gname.startswith("attn") else "mlp") + f".{m}"
                a = tensors[f"blk.{i}.{gname}.weight.lora_a"]
                b = tensors[f"blk.{i}.{gname}.weight.lora_b"]
                n_out, n_in = SHAPES[m]
                self.assertEqual([int(d) for d in a.shape], [n_in, RANK])
                self.assertEqual([int(d) for d in b.shape], [RANK, n_out])
                self.assertEqual(a.tensor_type.name, "F32")
                np.testing.assert_array_equal(tensor_2d(a), sd[f"{key}.lora_A.weight"])
                want_b = sd[f"{key}.lora_B.weight"]
                if m == "q_proj":
                    want_b = ea.permute_rows(want_b, N_HEAD)
                elif m == "k_proj":
                    want_b = ea.permute_rows(want_b, N_HEAD_KV)
                np.testing.assert_array_equal(tensor_2d(b), want_b)
        self.assertFalse(np.array_equal(tensor_2d(tensors["blk.0.attn_q.weight.lora_b"]),
                                        sd["base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight"]))

    def test_live_state_dict_with_adapter_name_and_base_weights(self):
        sd = state_dict(adapter_name="default")
        sd["base_model.model.model.layers.0.self_attn.q_proj.base_layer.weight"] = np.zeros((16, 16))
        sd["base_model.model.lm_head.weight"] = np.zeros((8, 16))
        ea.export(sd, 6.0, RANK, self.out, n_head=N_HEAD, n_head_kv=N_HEAD_KV)
        self.assertEqual(len(read(self.out)[1]), 28)

    def test_refused_inputs(self):
        def refuses(sd, want, **kw):
            args = dict(n_head=N_HEAD, n_head_kv=N_HEAD_KV)
            args.update(kw)
            with self.assertRaises(ea.ExportError) as cm:
                ea.export(sd, args.pop("alpha", 6.0), args.pop("rank", RANK), self.out, **args)
            self.assertIn(want, str(cm.exception))
            self.assertNotIn("\n", str(cm.exception))
            self.assertFalse(os.path.exists(self.out), "nothing is written for a refused input")

        sd = state_dict()
        del sd["base_model.model.model.layers.1.mlp.up_proj.lora_B.weight"]
        refuses(sd, "layer 1 ffn_up: lora_B is missing")
        sd = state_dict()
        sd["base_model.model.model.embed_tokens.lora_embedding_A"] = np.zeros((3, 8))
        refuses(sd, "not a LoRA of a Llama projection")
        sd = state_dict()
        sd["base_model.model.lm_head.lora_A.weight"] = np.zeros((3, 16))
        refuses(sd, "lm_head.lora_A.weight: not a LoRA of a Llama projection")
        sd = state_dict()
        sd["base_model.model.model.layers.0.mlp.up_proj.lora_A.weight"] = np.zeros((2, N_EMBD))
        refuses(sd, "layer 0 ffn_up: lora_A (2, 16) and lora_B (24, 3) do not pair")
        sd = state_dict()
        sd["base_model.model.model.layers.0.mlp.down_proj.lora_B.weight"][0, 0] = np.inf
        refuses(sd, "layer 0 ffn_down: non-finite values")
        refuses(state_dict(), "rank 3, expected 4", rank=4)
        refuses(state_dict(), "alpha nan is not finite", alpha=float("nan"))
        refuses({}, "holds no lora_A / lora_B")
        sd = state_dict(adapter_name="one")
        sd.update(state_dict(adapter_name="two"))
        refuses(sd, "several adapters")
        refuses(state_dict(), "head counts are needed", n_head=None, n_head_kv=None)
        refuses(state_dict(), "layer 0 attn_k: 8 rows do not split into 5 heads", n_head=5, n_head_kv=5)
        refuses(state_dict(), "architecture qwen2", base_gguf_arch="qwen2")
        shapes = {f"blk.{i}.{g}.weight": [SHAPES[m][1], SHAPES[m][0]]
                  for i in range(2) for m, g in ea.MODULES.items()}
        del shapes["blk.1.attn_v.weight"]
        refuses(state_dict(), "blk.1.attn_v.weight: not in the base model", base_shapes=shapes)
        shapes["blk.1.attn_v.weight"] = [N_EMBD, 99]
        refuses(state_dict(), "blk.1.attn_v.weight: base ne [16, 99], LoRA maps 16 -> 8",
                base_shapes=shapes)

    def peft_dir(self, name="peft", **cfg):
        d = os.path.join(self.dir.name, name)
        os.makedirs(d, exist_ok=True)
        config = {"peft_type": "LORA", "r": RANK, "lora_alpha": 6, "use_rslora": False,
                  "use_dora": False, "fan_in_fan_out": False, "rank_pattern": {},
                  "alpha_pattern": {}}
        config.update(cfg)
        with open(os.path.join(d, "adapter_config.json"), "w") as f:
            json.dump(config, f)
        save_file(state_dict(), os.path.join(d, "adapter_model.safetensors"))
        return d

    def run_main(self, args):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = ea.main(args)
        return rc, err.getvalue()

    def test_peft_folder(self):
        d = self.peft_dir()
        rc, err = self.run_main([d, "--out", self.out, "--n-head", "4", "--n-head-kv", "2"])
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(float(read(self.out)[0]("adapter.lora.alpha")[0]), 6.0)

    def test_rslora_folds_into_alpha(self):
        d = self.peft_dir(use_rslora=True)
        _, alpha, rank = ea.load_peft_dir(d)
        self.assertAlmostEqual(alpha / rank, 6.0 / np.sqrt(RANK))

    def test_command_refusals_are_one_line_exit_2(self):
        cases = [
            (self.peft_dir("dora", use_dora=True), "use_dora is not expressible"),
            (self.peft_dir("pattern", alpha_pattern={"q_proj": 3}), "alpha_pattern"),
            (self.peft_dir("ia3", peft_type="IA3"), "peft_type 'IA3'"),
            (os.path.join(self.dir.name, "missing"), "no adapter_config.json"),
        ]
        for d, want in cases:
            rc, err = self.run_main([d, "--out", self.out, "--n-head", "4"])
            self.assertEqual(rc, 2, want)
            self.assertIn(want, err)
            self.assertEqual(err.count("\n"), 1, err)
        rc, err = self.run_main([self.peft_dir(), "--out", self.out])
        self.assertEqual(rc, 2)
        self.assertIn("give --base BASE.gguf or --n-head", err)


if __name__ == "__main__":
    unittest.main()
