"""Reference outputs of Hugging Face's implementations for a llama-family GGUF (SmolLM2).

  tokens GGUF CORPUS OUT        ids of every corpus string from a `tokenizers` tokenizer
                                built from the GGUF's vocabulary and merges with SmolLM2's
                                published pipeline (tokenizer.json: Digits(individual_digits)
                                then ByteLevel(add_prefix_space=False), its 17 special tokens)
  logits GGUF PROMPTS OURS OUT  transformers' LlamaForCausalLM loaded from the same GGUF
                                (gguf_file=, float32, CPU) on each prompt's ids; compares
                                every row with ours (OURS/i.f32, rows x vocab float32) and
                                writes the statistics

Run with the project venv (.venv/bin/python, scripts/setup_python.sh).
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TQDM_DISABLE", "1")


def gguf_strings(reader, key):
    f = reader.fields[key]
    return [bytes(f.parts[i]).decode("utf-8") for i in f.data]


def gguf_ints(reader, key):
    f = reader.fields[key]
    return [int(f.parts[i][0]) for i in f.data]


def build_tokenizer(path):
    from gguf import GGUFReader
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    r = GGUFReader(path)
    tokens = gguf_strings(r, "tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in gguf_strings(r, "tokenizer.ggml.merges")]
    types = gguf_ints(r, "tokenizer.ggml.token_type")
    tok = Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    specials = [t for t, ty in zip(tokens, types) if ty == 3]
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])
    return tok


def cmd_tokens(gguf_path, corpus_path, out_path):
    tok = build_tokenizer(gguf_path)
    with open(corpus_path, encoding="utf-8") as f:
        corpus = json.load(f)
    ids = [tok.encode(s, add_special_tokens=False).ids for s in corpus]
    with open(out_path, "w") as f:
        json.dump({"ids": ids}, f)


def cmd_logits(gguf_path, prompts_path, ours_dir, out_path):
    import numpy as np
    import torch
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(2)
    d, name = os.path.split(os.path.abspath(gguf_path))
    model = AutoModelForCausalLM.from_pretrained(d, gguf_file=name, torch_dtype=torch.float32)
    # A GGUF without output.weight ties the head to the embedding; transformers 4.46's GGUF
    # loader leaves lm_head randomly initialised instead.
    from gguf import GGUFReader

    if not any(t.name == "output.weight" for t in GGUFReader(gguf_path).tensors):
        model.lm_head.weight = model.model.embed_tokens.weight
    model.eval()
    with open(prompts_path) as f:
        prompts = json.load(f)["prompts"]
    stats = []
    for i, ids in enumerate(prompts):
        with torch.no_grad():
            ref = model(torch.tensor([ids])).logits[0].float().numpy()
        ours = np.fromfile(os.path.join(ours_dir, f"{i}.f32"), dtype=np.float32)
        ours = ours.reshape(ref.shape)
        diff = np.abs(ours - ref)
        stats.append(
            {
                "tokens": len(ids),
                "max_abs_diff": float(diff.max()),
                "max_abs_logit": float(np.abs(ref).max()),
                "top1_mismatches": int((ours.argmax(axis=1) != ref.argmax(axis=1)).sum()),
            }
        )
    with open(out_path, "w") as f:
        json.dump({"prompts": stats}, f)


def main(argv):
    if len(argv) == 4 and argv[0] == "tokens":
        return cmd_tokens(*argv[1:])
    if len(argv) == 5 and argv[0] == "logits":
        return cmd_logits(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
