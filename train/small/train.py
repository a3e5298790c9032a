"""Fine-tune SmolLM2-135M-Instruct (the pinned GGUF, dequantized to float32) into a rule reader.

    .venv-train/bin/python -m train.small.train --out DIR [--steps N] [--resume]

LoRA (peft) on the attention and MLP projections; the loss is the cross-entropy of the answer
letter at the one position the runtime reads (the token after the assistant prompt). Items
sharing a rule are packed into one row: the rule prefix once, then each situation attending
to the prefix and to itself only, with positions continuing from the prefix, which is exactly
what each would see alone (and what the runtime's prefix cache computes). Resumable: the
adapter, optimizer and step are saved every `save_every` steps under DIR/ckpt.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TQDM_DISABLE", "1")

import torch  # noqa: E402

from train.common import cache_dir  # noqa: E402
from train.common import compose  # noqa: E402
from train.common.heldout import composed as heldout  # noqa: E402
from train.small.prompt import Prompter  # noqa: E402


def default_base() -> str:
    """The pinned base in the model cache: the training cache's sibling (train/common/cache_dir.py)."""
    return os.path.join(os.path.dirname(cache_dir.train_cache()), "models", "smollm2-135m.gguf")


def default_out() -> str:
    return os.path.join(cache_dir.train_cache(), "small", "run")


TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclasses.dataclass
class Config:
    base: str = dataclasses.field(default_factory=default_base)
    out: str = dataclasses.field(default_factory=default_out)
    seed: int = 0
    rank: int = 16
    alpha: float = 32.0
    first_layer: int = 12  # LoRA on layers first_layer..last (the lower ones stay frozen)
    lr: float = 1e-3
    warmup: int = 20
    steps: int = 400
    rules_per_step: int = 6  # packed rows per optimizer step
    states_per_rule: int = 4
    eval_rules: int = 40
    eval_every: int = 50
    save_every: int = 10
    threads: int = 1
    device: str = "cpu"  # "cuda" on a lent GPU; the recipe's default is the CPU
    dev_domains: int = 8  # bank domains kept out of training, for the synthetic dev score
    # Comma-separated form tags whose items are left out of training and dev (a diagnostic:
    # does the reader learn the easy forms alone?). Empty: every form.
    exclude_forms: str = ""


def load_model(cfg: Config):
    from gguf import GGUFReader
    from transformers import AutoModelForCausalLM

    d, name = os.path.split(os.path.abspath(cfg.base))
    model = AutoModelForCausalLM.from_pretrained(d, gguf_file=name, torch_dtype=torch.float32)
    # transformers 4.46's GGUF loader leaves an untied head random when the file ties it.
    if not any(t.name == "output.weight" for t in GGUFReader(cfg.base).tensors):
        model.lm_head.weight = model.model.embed_tokens.weight
    return model


def with_lora(model, cfg: Config):
    from peft import LoraConfig, get_peft_model

    n_layers = model.config.num_hidden_layers
    lc = LoraConfig(
        r=cfg.rank,
        lora_alpha=cfg.alpha,
        lora_dropout=0.0,
        target_modules=TARGETS,
        layers_to_transform=list(range(cfg.first_layer, n_layers)),
    )
    return get_peft_model(model, lc)


def split_domains(cfg: Config):
    domains = compose.load_bank()
    rng = random.Random(1234)  # fixed: the dev domains never change with the run's seed
    order = list(range(len(domains)))
    rng.shuffle(order)
    dev = {domains[i]["domain"] for i in order[: cfg.dev_domains]}
    return [d for d in domains if d["domain"] not in dev], [d for d in domains if d["domain"] in dev]


def groups_stream(domains, seed: int, states_per_rule: int, exclude: frozenset = frozenset()):
    """Endless rule groups (lists of Items), held-out overlaps (and excluded forms) dropped."""
    rng = random.Random(seed)
    while True:
        items = compose.items_for_rule(rng, rng.choice(domains), states_per_rule)
        items = [it for it in items if heldout.clean(it) and not exclude.intersection(it.forms)]
        if items:
            yield items


def pack(prompter: Prompter, groups):
    """Rows of packed ids, position ids, additive masks, answer positions and targets."""
    rows = []
    for items in groups:
        pre = prompter.prefix(items[0].rule, items[0].options)
        ids, pos, seg = list(pre), list(range(len(pre))), [0] * len(pre)
        answers = []
        for k, it in enumerate(items, 1):
            suf = prompter.suffix(it.state)
            ids += suf
            pos += list(range(len(pre), len(pre) + len(suf)))
            seg += [k] * len(suf)
            answers.append((len(ids) - 1, prompter.vocab[it.answer]))
        rows.append((ids, pos, seg, answers))
    T = max(len(r[0]) for r in rows)
    B = len(rows)
    ids = torch.zeros(B, T, dtype=torch.long)
    pos = torch.zeros(B, T, dtype=torch.long)
    mask = torch.full((B, 1, T, T), torch.finfo(torch.float32).min)
    where, targets = [], []
    for b, (i, p, s, ans) in enumerate(rows):
        n = len(i)
        ids[b, :n] = torch.tensor(i)
        pos[b, :n] = torch.tensor(p)
        s = torch.tensor(s)
        causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
        # a token sees earlier tokens of the prefix (segment 0) and of its own segment
        allowed = causal & ((s[None, :] == 0) | (s[None, :] == s[:, None]))
        mask[b, 0, :n, :n].masked_fill_(allowed, 0.0)
        if n < T:  # padding rows attend to themselves only (never read)
            idx = torch.arange(n, T)
            mask[b, 0, idx, idx] = 0.0
        for at, tgt in ans:
            where.append((b, at))
            targets.append(tgt)
    return ids, pos, mask, where, torch.tensor(targets)


def answer_logits(model, ids, pos, mask, where):
    dev = next(model.parameters()).device
    ids, pos, mask = ids.to(dev), pos.to(dev), mask.to(dev)
    core = model.get_base_model().model if hasattr(model, "get_base_model") else model.model
    hidden = core(input_ids=ids, position_ids=pos, attention_mask=mask).last_hidden_state
    b = torch.tensor([w[0] for w in where], device=dev)
    t = torch.tensor([w[1] for w in where], device=dev)
    head = model.get_base_model().lm_head if hasattr(model, "get_base_model") else model.lm_head
    return head(hidden[b, t])


@torch.no_grad()
def score(model, prompter: Prompter, groups, batch: int = 8) -> list:
    """(item, chosen letter) for every item, read as the runtime reads: a softmax over the
    options' letter ids ("A" and " A" summed per letter), the most probable letter."""
    was_training = model.training
    model.eval()
    out = []
    for k in range(0, len(groups), batch):
        chunk = groups[k : k + batch]
        ids, pos, mask, where, _ = pack(prompter, chunk)
        logits = answer_logits(model, ids, pos, mask, where)
        for row, it in zip(logits, [it for g in chunk for it in g]):
            read = [(letter, i) for letter, _ in it.options for i in prompter.letter_ids(letter)]
            per: dict = {}
            for (letter, _), q in zip(read, torch.softmax(row[[i for _, i in read]], 0).tolist()):
                per[letter] = per.get(letter, 0.0) + q
            out.append((it, max(per, key=per.get)))
    model.train(was_training)
    return out


def evaluate(model, prompter: Prompter, groups) -> dict:
    """Accuracy overall and per form tag (a form's share of the dev items varies by run)."""
    res = score(model, prompter, groups)
    per: dict = {}
    for it, got in res:
        for f in it.forms:
            hit, n = per.get(f, (0, 0))
            per[f] = (hit + (got == it.answer), n + 1)
    forms = {f: round(h / n, 3) for f, (h, n) in sorted(per.items())}
    return {"acc": sum(got == it.answer for it, got in res) / max(len(res), 1), "n": len(res), "forms": forms}


def lr_at(cfg: Config, s: int) -> float:
    """Linear warm-up, then a cosine to 0 at cfg.steps."""
    if s < cfg.warmup:
        return cfg.lr * (s + 1) / cfg.warmup
    return (
        cfg.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, (s - cfg.warmup) / max(1, cfg.steps - cfg.warmup))))
    )


def batch_hits(prompter: Prompter, logits, groups) -> tuple[int, int]:
    """(right answers, items) of the batch by its own logits before the update: a cheap, noisy
    learning signal."""
    with torch.no_grad():
        items = [it for g in groups for it in g]
        hits = 0
        for row, it in zip(logits, items):
            ids_l = [prompter.vocab[letter] for letter, _ in it.options]
            hits += it.options[int(row[ids_l].argmax())][0] == it.answer
    return hits, len(items)


def save_lora(model, opt, step: int, ckpt: str) -> None:
    """The trainable (LoRA) weights, the optimizer and the step, written atomically."""
    trainable = {k: v for k, v in model.state_dict().items() if "lora_" in k}
    torch.save({"model": trainable, "opt": opt.state_dict(), "step": step}, ckpt + ".tmp")
    os.replace(ckpt + ".tmp", ckpt)


def parse_config(argv=None) -> tuple[Config, bool]:
    """(the Config, one flag per field; --resume)."""
    cfg = Config()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Config):
        default = getattr(cfg, f.name)
        ap.add_argument("--" + f.name.replace("_", "-"), type=type(default), default=default)
    ap.add_argument("--resume", action="store_true", help="continue from OUT/ckpt if present")
    a = ap.parse_args(argv)
    return Config(**{f.name: getattr(a, f.name) for f in dataclasses.fields(Config)}), a.resume


def main(argv=None) -> int:
    cfg, resume = parse_config(argv)
    if not os.path.isfile(cfg.base):
        print(f"train: base model not found: {cfg.base} (run scripts/fetch_models.sh)", file=sys.stderr)
        return 2
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    os.makedirs(cfg.out, exist_ok=True)
    prompter = Prompter(cfg.base)
    train_domains, dev_domains = split_domains(cfg)
    exclude = frozenset(f for f in cfg.exclude_forms.split(",") if f)
    dev_stream = groups_stream(dev_domains, 10_000 + cfg.seed, cfg.states_per_rule, exclude)
    dev = [next(dev_stream) for _ in range(cfg.eval_rules)]

    model = with_lora(load_model(cfg), cfg).to(cfg.device)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
    step = 0
    ckpt = os.path.join(cfg.out, "ckpt.pt")
    log_path = os.path.join(cfg.out, "log.jsonl")
    if resume and os.path.isfile(ckpt):
        state = torch.load(ckpt, map_location=cfg.device)
        model.load_state_dict(state["model"], strict=False)
        opt.load_state_dict(state["opt"])
        step = state["step"]
        print(f"resumed at step {step}", flush=True)
    with open(os.path.join(cfg.out, "config.json"), "w") as f:
        json.dump(dataclasses.asdict(cfg), f, indent=1)
    # The stream is a pure function of (seed, step): a resumed run sees what it would have seen.
    stream = groups_stream(train_domains, cfg.seed, cfg.states_per_rule, exclude)
    for _ in range(step * cfg.rules_per_step):
        next(stream)

    if step == 0:
        r = evaluate(model, prompter, dev)
        print(f"step 0 dev {r['acc']:.3f} ({r['n']}) {json.dumps(r['forms'])}", flush=True)
    t0 = time.time()
    model.train()
    while step < cfg.steps:
        groups = [next(stream) for _ in range(cfg.rules_per_step)]
        ids, pos, mask, where, targets = pack(prompter, groups)
        logits = answer_logits(model, ids, pos, mask, where)
        loss = torch.nn.functional.cross_entropy(logits.float(), targets.to(logits.device))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        for g in opt.param_groups:
            g["lr"] = lr_at(cfg, step)
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        hits, n = batch_hits(prompter, logits, groups)
        rec = {
            "step": step,
            "loss": round(loss.item(), 4),
            "batch_acc": round(hits / n, 3),
            "tokens": int(ids.numel()),
            "s": round(time.time() - t0, 1),
        }
        if step % cfg.eval_every == 0 or step == cfg.steps:
            r = evaluate(model, prompter, dev)
            rec["dev"], rec["dev_forms"] = r["acc"], r["forms"]
        print(json.dumps(rec), flush=True)
        with open(log_path, "a") as f:
            f.write(json.dumps(rec) + "\n")
        if step % cfg.save_every == 0 or step == cfg.steps:
            save_lora(model, opt, step, ckpt)
    model.save_pretrained(os.path.join(cfg.out, "adapter"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
