"""The PyTorch reference of a LoRA on a llama-family GGUF (SmolLM2), for the reference tests.

  make GGUF PEFT_DIR ADAPTER [--rank R --alpha A --seed S]
      transformers' LlamaForCausalLM from the GGUF (float32), a peft LoRA on all seven
      projections with seeded random A and B (peft starts B at zero, which would test
      nothing), saved into PEFT_DIR as save_pretrained lays it out and exported to ADAPTER by
      train/small/export_adapter.py (its command line, checked against the base GGUF)
  logits GGUF PEFT_DIR PROMPTS OURS OUT
      the base from the GGUF with PEFT_DIR loaded on it and merged (merge_and_unload): the
      reference model. PROMPTS is {"prompts": [{"ids": [...], "runs": [{"file", "from"}]}]}:
      each run's OURS/<file> holds our logits rows for positions from..len(ids)-1 (float32,
      rows x vocab). Writes per run max |ours - merged|, max |merged|, top-1 mismatches, and
      max |merged - base| (how far the adapter moves the logits).

  layout GGUF OUT
      the fact the exporter rests on: per projection (q, k, v) over every layer, max |GGUF
      tensor - HF weight| as transformers loads it and after export_adapter.permute_rows
      (n_head for q, n_head_kv for k)

Run with the project venv (.venv/bin/python, scripts/setup_python.sh).
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TQDM_DISABLE", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def load_base(gguf_path):
    import torch
    from gguf import GGUFReader
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(2)
    d, name = os.path.split(os.path.abspath(gguf_path))
    model = AutoModelForCausalLM.from_pretrained(d, gguf_file=name, torch_dtype=torch.float32)
    # transformers 4.46 leaves lm_head random when the GGUF ties it to the embedding.
    if not any(t.name == "output.weight" for t in GGUFReader(gguf_path).tensors):
        model.lm_head.weight = model.model.embed_tokens.weight
    return model.eval()


def cmd_make(gguf_path, peft_dir, adapter_path, rank=8, alpha=16.0, seed=0):
    import torch
    from peft import LoraConfig, get_peft_model

    model = load_base(gguf_path)
    cfg = LoraConfig(r=rank, lora_alpha=alpha, target_modules=TARGETS, lora_dropout=0.0,
                     bias="none", task_type="CAUSAL_LM")
    model = get_peft_model(model, cfg)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            # A ~ U(-1/sqrt(n_in), 1/sqrt(n_in)) like peft's own init; B ~ N(0, 0.02^2), about
            # a tenth of the base weights' spread, so the adapter moves the logits visibly.
            if "lora_A" in name:
                bound = 1.0 / p.shape[1] ** 0.5
                p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * bound)
            elif "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    # What save_pretrained writes, less the model card (which needs Jinja2, not in the venv).
    from peft import get_peft_model_state_dict
    from safetensors.torch import save_file

    os.makedirs(peft_dir, exist_ok=True)
    model.peft_config["default"].save_pretrained(peft_dir)
    state = {k: v.contiguous() for k, v in get_peft_model_state_dict(model).items()}
    save_file(state, os.path.join(peft_dir, "adapter_model.safetensors"))
    sys.path.insert(0, ROOT)
    from train.small import export_adapter

    rc = export_adapter.main([peft_dir, "--out", adapter_path, "--base", gguf_path])
    if rc != 0:
        raise SystemExit(rc)


def cmd_logits(gguf_path, peft_dir, prompts_path, ours_dir, out_path):
    import numpy as np
    import torch
    from peft import PeftModel

    model = load_base(gguf_path)
    with open(prompts_path) as f:
        prompts = json.load(f)["prompts"]
    base = []
    with torch.no_grad():
        for p in prompts:
            base.append(model(torch.tensor([p["ids"]])).logits[0].float().numpy())
    merged = PeftModel.from_pretrained(model, peft_dir).merge_and_unload().eval()
    stats = []
    for p, b in zip(prompts, base):
        with torch.no_grad():
            ref = merged(torch.tensor([p["ids"]])).logits[0].float().numpy()
        for run in p["runs"]:
            r0 = run["from"]
            ours = np.fromfile(os.path.join(ours_dir, run["file"]), dtype=np.float32)
            ours = ours.reshape(ref.shape[0] - r0, ref.shape[1])
            want = ref[r0:]
            stats.append(
                {
                    "file": run["file"],
                    "rows": int(want.shape[0]),
                    "max_abs_diff": float(np.abs(ours - want).max()),
                    "max_abs_logit": float(np.abs(want).max()),
                    "top1_mismatches": int((ours.argmax(1) != want.argmax(1)).sum()),
                    "adapter_effect": float(np.abs(want - b[r0:]).max()),
                    "top1_changed_by_adapter": int((want.argmax(1) != b[r0:].argmax(1)).sum()),
                }
            )
    with open(out_path, "w") as f:
        json.dump({"runs": stats}, f)


def cmd_layout(gguf_path, out_path):
    import numpy as np
    from gguf import GGUFReader
    from gguf.quants import dequantize

    sys.path.insert(0, ROOT)
    from train.small.export_adapter import permute_rows

    model = load_base(gguf_path)
    r = GGUFReader(gguf_path)
    tensors = {t.name: t for t in r.tensors}
    heads = {"q_proj": model.config.num_attention_heads,
             "k_proj": model.config.num_key_value_heads,
             "v_proj": model.config.num_key_value_heads}
    names = {"q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v"}
    stats = {p: {"as_is_max_diff": 0.0, "permuted_max_diff": 0.0} for p in names}
    for i, layer in enumerate(model.model.layers):
        for proj, gname in names.items():
            t = tensors[f"blk.{i}.{gname}.weight"]
            stored = dequantize(t.data, t.tensor_type).reshape(int(t.shape[1]), int(t.shape[0]))
            hf = getattr(layer.self_attn, proj).weight.detach().numpy()
            st = stats[proj]
            st["as_is_max_diff"] = max(st["as_is_max_diff"], float(np.abs(hf - stored).max()))
            st["permuted_max_diff"] = max(st["permuted_max_diff"],
                                          float(np.abs(permute_rows(hf, heads[proj]) - stored).max()))
    with open(out_path, "w") as f:
        json.dump(stats, f)


def main(argv):
    if len(argv) >= 4 and argv[0] == "make":
        import argparse

        p = argparse.ArgumentParser()
        p.add_argument("gguf")
        p.add_argument("peft_dir")
        p.add_argument("adapter")
        p.add_argument("--rank", type=int, default=8)
        p.add_argument("--alpha", type=float, default=16.0)
        p.add_argument("--seed", type=int, default=0)
        a = p.parse_args(argv[1:])
        return cmd_make(a.gguf, a.peft_dir, a.adapter, a.rank, a.alpha, a.seed)
    if len(argv) == 3 and argv[0] == "layout":
        return cmd_layout(*argv[1:])
    if len(argv) == 6 and argv[0] == "logits":
        return cmd_logits(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
