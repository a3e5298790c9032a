"""Fine-tune all-MiniLM-L6-v2 into meadow-reader: reading and judging, taught in parts.

    .venv-train/bin/python -m train.reader.train [--out DIR] [--steps N] [--minutes M]

Each step takes one batch of reading examples (tags + default) and one of judging examples
(train/reader/data.py), composed on the fly from the bank's training domains; a tenth of the
domains (by name hash) never train and give the dev score. Resumable: model, optimizer, step
and the data stream's RNG are saved to DIR/ckpt.pt every `save_every` steps; the log of
evaluations is DIR/log.jsonl.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from transformers import BertTokenizerFast  # noqa: E402

from train.common import cache_dir  # noqa: E402
from train.common import compose  # noqa: E402
from train.common.heldout import composed as heldout  # noqa: E402
from train.reader import data as R  # noqa: E402
from train.reader import decide as D  # noqa: E402
from train.reader.model import Reader  # noqa: E402


def default_base() -> str:
    from train.reader.base import base_dir

    return base_dir()


def default_out() -> str:
    return os.path.join(cache_dir.train_cache(), "reader", "run")


@dataclasses.dataclass
class Config:
    base: str = dataclasses.field(default_factory=default_base)
    out: str = dataclasses.field(default_factory=default_out)
    seed: int = 0
    lr: float = 5e-5  # 2e-4 left the judge at the majority class (lab notebook, 2026-12-06)
    warmup: int = 50
    steps: int = 3000
    read_batch: int = 16
    judge_batch: int = 48
    states_per_rule: int = 4
    max_len: int = 192
    save_every: int = 50
    eval_every: int = 250
    threads: int = 2
    reading: str = "rule"  # "option": one pass per option; "rule": one pass per rule + links
    judge: str = "late"  # "cross": (literal, situation) in one pass; "late": apart, then a look
    head_lr_scale: float = 10.0
    clip: float = 20.0
    lora_rank: int = 0  # 0: the encoder fully fine-tuned; else LoRA adapters of this rank
    people: bool = False  # the composer's wordings of people too (compose.render(people=True))
    labelled: list = dataclasses.field(default_factory=list)  # train/common/people_rules/partN.jsonl
    labelled_share: float = 0.0  # of each reading and judging batch, hand-labelled
    init: str = ""  # a checkpoint whose weights start this run (heads it lacks start random)
    tag_weight: float = 3.0  # a rule token is O nine times in ten; the others weigh this much more  # the heads start from random; the encoder from pretrained


def is_dev(domain: str) -> bool:
    return int(hashlib.sha1(domain.encode()).hexdigest(), 16) % 10 == 0


class Stream:
    """Reading and judging examples from composed items, shuffled through a small pool. The
    judging examples of one item (every literal of its rule, one situation) stay together: the
    situation is encoded once, and its literals are each other's near misses."""

    def __init__(
        self,
        domains: list[dict],
        seed: int,
        reading: str = "option",
        people: bool = False,
        labelled: list | None = None,
        labelled_share: float = 0.0,
        labelled_judges: list | None = None,
    ):
        self.domains = domains
        self.reading = reading
        self.people = people
        self.labelled = labelled or []  # reading examples of hand-labelled rules
        self.labelled_share = labelled_share
        self.labelled_judges = labelled_judges or []  # per situation, its literals' judge examples
        self.rng = random.Random(seed)
        self.reads: list[R.ReadingExample] = []
        self.judges: list[list[R.JudgeExample]] = []

    def _fill(self, states_per_rule: int) -> None:
        while len(self.reads) < 200 or len(self.judges) < 150:
            items = compose.items_for_rule(
                self.rng, self.rng.choice(self.domains), states_per_rule, dense=True, people=self.people
            )
            items = [it for it in items if heldout.clean(it)]
            if not items:
                continue
            if self.reading == "rule":
                ex = R.rule_example(items[0])
                self.reads += [ex] if ex is not None else []
            else:
                self.reads += R.reading_examples(items[0])
            self.judges += [g for g in (R.judge_examples(it) for it in items) if g]
        self.rng.shuffle(self.reads)
        self.rng.shuffle(self.judges)

    def batch(self, n_read: int, n_judge: int, states_per_rule: int):
        self._fill(states_per_rule)
        n_own = sum(self.rng.random() < self.labelled_share for _ in range(n_read)) if self.labelled else 0
        reads, self.reads = self.reads[: n_read - n_own], self.reads[n_read - n_own :]
        reads += self.rng.sample(self.labelled, min(n_own, len(self.labelled)))
        judges: list[R.JudgeExample] = []
        while self.labelled_judges and len(judges) < n_judge * self.labelled_share:
            judges += self.rng.choice(self.labelled_judges)
        while len(judges) < n_judge and self.judges:
            judges += self.judges.pop()
        return reads, judges


def read_tensors(tok, examples: list[R.ReadingExample], max_len: int) -> dict:
    enc = D.encode_pairs(tok, [e.query for e in examples], [e.rule for e in examples], max_len)
    offsets = enc.pop("offset_mapping").tolist()
    tags = []
    for i, e in enumerate(examples):
        in_rule = [s == 1 for s in enc.sequence_ids(i)]
        tags.append(R.token_tags([tuple(o) for o in offsets[i]], in_rule, e.spans))
    enc["tags"] = torch.tensor(tags)
    enc["is_default"] = torch.tensor([float(e.is_default) for e in examples])
    return enc


def judge_tensors(tok, examples: list[R.JudgeExample], max_len: int) -> dict:
    enc = D.encode_pairs(tok, [e.condition for e in examples], [e.state for e in examples], max_len)
    offsets = enc.pop("offset_mapping").tolist()
    enc["holds"] = torch.tensor([float(e.holds) for e in examples])
    enc["op"] = torch.tensor([R.OPS.index(e.op) for e in examples])
    enc["numbers"] = torch.tensor(
        [R.judge_token_tags(offsets[i], enc.sequence_ids(i), e) for i, e in enumerate(examples)]
    )
    return enc


def rule_tensors(tok, examples: list[R.RuleExample], max_len: int) -> dict:
    enc = D.encode_pairs(tok, [e.rule for e in examples], [e.listing for e in examples], max_len)
    offsets = enc.pop("offset_mapping").tolist()
    n, t = enc["input_ids"].shape
    labels, clauses = [], []
    for i, e in enumerate(examples):
        seq = enc.sequence_ids(i)
        lab = R.rule_token_labels(offsets[i], seq, e)
        groups: dict[int, list[int]] = {}
        targets: dict[int, int] = {}
        for k, toks in enumerate(lab[2]):
            groups.setdefault(e.literal_clause[k], []).extend(toks)
            targets[e.literal_clause[k]] = e.literal_option[k]
        keys = [c for c in sorted(groups) if groups[c]]
        rule_tokens = [j for j, (sid, (a, b)) in enumerate(zip(seq, offsets[i])) if sid == 0 and b > a]
        windows = R.clause_windows([groups[c] for c in keys], rule_tokens)
        clauses.append([(groups[c], w[0], w[1], targets[c]) for c, w in zip(keys, windows)])
        labels.append(lab)
    n_cl = max(1, max(len(c) for c in clauses))
    n_opt = max(len(lab[3]) for lab in labels)
    masks = [torch.zeros(n, n_cl, t) for _ in range(3)]
    opt_masks = torch.zeros(n, n_opt, t)
    link = torch.full((n, n_cl), -100, dtype=torch.long)
    default = torch.zeros(n, n_opt)
    opt_valid = torch.zeros(n, n_opt)
    for i, e in enumerate(examples):
        for k, (own, left, right, target) in enumerate(clauses[i]):
            for m, toks in zip(masks, (own, left, right)):
                m[i, k, toks] = 1.0
            link[i, k] = target
        for k, toks in enumerate(labels[i][3]):
            opt_masks[i, k, toks] = 1.0
            opt_valid[i, k] = 1.0
        if e.default is not None:
            default[i, e.default] = 1.0
    enc.update(
        tags=torch.tensor([lab[0] for lab in labels]),
        ante=torch.tensor([lab[1] for lab in labels]),
        clause_masks=masks,
        opt_masks=opt_masks,
        link=link,
        default=default,
        opt_valid=opt_valid,
    )
    return enc


def rule_losses(model, rb: dict, tag_weight: float) -> dict:
    batch = {k: rb[k] for k in ("input_ids", "attention_mask", "token_type_ids")}
    tags, ante, link, default = model.read_rule(batch, rb["clause_masks"], rb["opt_masks"])
    w = torch.full((len(R.RULE_TAGS),), tag_weight)
    w[R.RULE_TAG["O"]] = 1.0
    am = (rb["ante"] >= 0).float()
    link = link.masked_fill(rb["opt_valid"].unsqueeze(1) == 0, -1e4)
    valid = rb["opt_valid"]
    d = F.binary_cross_entropy_with_logits(default, rb["default"], reduction="none")
    return {
        "tag": F.cross_entropy(tags.flatten(0, 1), rb["tags"].flatten(), weight=w, ignore_index=-100)
        + (F.binary_cross_entropy_with_logits(ante, rb["ante"].clamp(min=0), reduction="none") * am).sum()
        / am.sum(),
        "link": F.cross_entropy(link.flatten(0, 1), rb["link"].flatten(), ignore_index=-100),
        "default": (d * valid).sum() / valid.sum(),
    }


def late_tensors(tok, examples: list[R.JudgeExample], max_len: int) -> dict:
    """The late judge's batch: each distinct literal and situation encoded once, the pairs as
    indices into them, and per pair the situation tokens that hold the quantity's value."""
    lits = list(dict.fromkeys(e.condition for e in examples))
    states = list(dict.fromkeys(e.state for e in examples))
    first = {}
    for e in examples:
        first.setdefault(e.condition, e)
    lit = D.encode_singles(tok, lits, max_len)
    lit_off = lit.pop("offset_mapping").tolist()
    thr = []
    for i, text in enumerate(lits):
        seq = [0 if x is not None else None for x in lit.sequence_ids(i)]
        thr.append(R.judge_token_tags(lit_off[i], seq, dataclasses.replace(first[text], value=None)))
    st = D.encode_singles(tok, states, max_len)
    st_off = st.pop("offset_mapping").tolist()
    known = {t: first[t].numbers_known for t in lits}
    for i, text in enumerate(lits):
        if not known[text]:
            thr[i] = [-100] * len(thr[i])
    li = [lits.index(e.condition) for e in examples]
    si = [states.index(e.state) for e in examples]
    value = torch.zeros(len(examples), st["input_ids"].shape[1])
    for k, e in enumerate(examples):
        if e.value is not None:
            for t, (a, b) in enumerate(st_off[si[k]]):
                if b > a and a < e.value[1] and b > e.value[0]:
                    value[k, t] = 1.0
    return {
        "lit": lit,
        "st": st,
        "li": torch.tensor(li),
        "si": torch.tensor(si),
        "holds": torch.tensor([float(e.holds) for e in examples]),
        "op": torch.tensor([R.OPS.index(first[t].op) if known[t] else -100 for t in lits]),
        "value_known": torch.tensor([float(e.numbers_known) for e in examples]),
        "thr": torch.tensor(thr),
        "value": value,
    }


def judge_losses(model, jb: dict) -> dict:
    if model.judge_kind == "cross":
        judge, op, numbers = model.holds(jb)
        return {
            "judge": F.binary_cross_entropy_with_logits(judge, jb["holds"]),
            "op": F.cross_entropy(op, jb["op"]),
            "num": F.cross_entropy(numbers.flatten(0, 1), jb["numbers"].flatten(), ignore_index=-100),
        }
    lit, st = model.literal_part(jb["lit"]), model.state_part(jb["st"])
    logit, value = model.late_holds(lit, st, jb["li"], jb["si"])
    smask = jb["st"]["attention_mask"][jb["si"]].float() * jb["value_known"].unsqueeze(1)
    v = F.binary_cross_entropy_with_logits(value, jb["value"], reduction="none")
    return {
        "judge": F.binary_cross_entropy_with_logits(logit, jb["holds"]),
        "op": F.cross_entropy(lit["op"], jb["op"], ignore_index=-100),
        "num": F.cross_entropy(lit["thr"].flatten(0, 1), jb["thr"].flatten(), ignore_index=-100)
        + (v * smask).sum() / smask.sum().clamp(min=1.0),
    }


def losses(model, rb: dict, jb: dict, tag_weight: float = 1.0) -> dict:
    if "clause_masks" in rb:
        out = {**rule_losses(model, rb, tag_weight), **judge_losses(model, jb)}
        out["total"] = sum(out.values())
        return out
    tag_logits, def_logits = model.read(rb)
    w = torch.full((len(R.TAGS),), tag_weight)
    w[R.TAG["O"]] = 1.0
    out = {
        "tag": F.cross_entropy(tag_logits.flatten(0, 1), rb["tags"].flatten(), weight=w, ignore_index=-100),
        "default": F.binary_cross_entropy_with_logits(def_logits, rb["is_default"]),
        **judge_losses(model, jb),
    }
    out["total"] = sum(out.values())
    return out


def dev_items(domains: list[dict], n_rules: int = 120, seed: int = 999) -> list[dict]:
    rng = random.Random(seed)
    out = []
    while len(out) < n_rules * 3:
        for it in compose.items_for_rule(rng, rng.choice(domains), 3, dense=True):
            if heldout.clean(it):
                out.append(dict(it.to_json(), answer=it.answer))
    return out


def save_checkpoint(path: str, model, opt, step: int, stream: Stream, cfg: Config) -> None:
    tmp = path + ".tmp"
    torch.save(
        {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "step": step,
            "rng": stream.rng.getstate(),
            "config": dataclasses.asdict(cfg),
        },
        tmp,
    )
    os.replace(tmp, path)


def evaluate(model, tok, dev: list[dict], exams: list[str]) -> dict:
    from train.reader import evaluate as E

    model.eval()
    out = {"dev": round(E.score(model, tok, dev)["acc"], 3)}
    for path in exams:
        s = E.score(model, tok, E.load(path))
        out[os.path.basename(path)] = round(s["acc"], 3)
    model.train()
    return out


def labelled_data(paths: list[str]) -> tuple[list, list]:
    """Reading examples of hand-labelled rules and, where a partN.situations.jsonl sits beside
    them, their situations' judge examples; rules or situations overlapping a held-out text are
    dropped."""
    from train.common.people_rules import check as people_rules
    from train.common.people_rules import check_situations as sits

    if not paths:
        return [], []
    rows = people_rules.load(paths)
    clean = [heldout.clean(R.people_rule(r)) for r in rows]
    reads = [R.rule_example(R.people_rule(r)) for r, ok in zip(rows, clean) if ok]
    reads = [ex for ex in reads if ex is not None]
    judges = []
    for rule, sit in sits.pairs(paths):
        if heldout.clean(R.people_rule(rule)):
            judges += [
                g for g in R.people_judges(rule, sit) if g and heldout.default().find(g[0].state) is None
            ]
    print(f"hand-labelled: {sum(clean)} of {len(rows)} rules, {len(judges)} situations", flush=True)
    return reads, judges


def run(cfg: Config, minutes: float | None, exams: list[str], eval_first: bool = False) -> None:
    torch.set_num_threads(cfg.threads)
    if cfg.base == default_base():
        from train.reader.base import extract

        extract()
    torch.manual_seed(cfg.seed)
    os.makedirs(cfg.out, exist_ok=True)
    domains = compose.load_bank()
    train_domains = [d for d in domains if not is_dev(d["domain"])]
    dev = dev_items([d for d in domains if is_dev(d["domain"])])
    tok = BertTokenizerFast.from_pretrained(cfg.base)
    model = Reader(cfg.base, cfg.judge, cfg.reading, cfg.lora_rank)
    if cfg.init and not os.path.exists(os.path.join(cfg.out, "ckpt.pt")):
        start = torch.load(cfg.init, map_location="cpu", weights_only=False)["model"]
        missing, _ = model.load_state_dict(start, strict=False)
        print(f"started from {cfg.init}; new: {', '.join(sorted({m.split('.')[0] for m in missing}))}")
    heads = [p for n, p in model.named_parameters() if not n.startswith("bert.") and p.requires_grad]
    body = [p for n, p in model.named_parameters() if n.startswith("bert.") and p.requires_grad]
    opt = torch.optim.AdamW(
        [{"params": body, "lr": cfg.lr}, {"params": heads, "lr": cfg.lr * cfg.head_lr_scale}],
        weight_decay=0.01,
    )
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / cfg.warmup) * max(0.05, 1 - s / cfg.steps)
    )
    labelled, judges = labelled_data(cfg.labelled)
    stream = Stream(train_domains, cfg.seed, cfg.reading, cfg.people, labelled, cfg.labelled_share, judges)
    ckpt = os.path.join(cfg.out, "ckpt.pt")
    step = 0
    if os.path.exists(ckpt):
        ck = torch.load(ckpt, map_location="cpu", weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        step = ck["step"]
        stream.rng.setstate(ck["rng"])
        for _ in range(step):
            sched.step()
        print(f"resumed at step {step}", flush=True)
    log = open(os.path.join(cfg.out, "log.jsonl"), "a", encoding="utf-8")
    t0 = time.time()
    model.train()
    if step == 0 and eval_first:
        log.write(json.dumps({"step": 0, "min": 0.0, **evaluate(model, tok, dev, exams)}) + "\n")
        log.flush()
    while step < cfg.steps:
        reads, judges = stream.batch(cfg.read_batch, cfg.judge_batch, cfg.states_per_rule)
        jt = judge_tensors if cfg.judge == "cross" else late_tensors
        rt = rule_tensors if cfg.reading == "rule" else read_tensors
        ls = losses(model, rt(tok, reads, cfg.max_len), jt(tok, judges, cfg.max_len), cfg.tag_weight)
        opt.zero_grad()
        ls["total"].backward()
        # Only a guard against spikes: five losses summed have a norm of 3-20, and clipping at 1
        # slowed every head but the easy ones (measured: tags collapsed to O after 200 steps).
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        opt.step()
        sched.step()
        step += 1
        if step % 10 == 0:
            msg = " ".join(f"{k} {v.item():.3f}" for k, v in ls.items())
            print(f"step {step} {msg} ({(time.time() - t0) / 60:.1f} min)", flush=True)
        if step % cfg.save_every == 0 or step == cfg.steps:
            save_checkpoint(ckpt, model, opt, step, stream, cfg)
        if step % cfg.eval_every == 0 or step == cfg.steps:
            row = {"step": step, "min": round((time.time() - t0) / 60, 1), **evaluate(model, tok, dev, exams)}
            log.write(json.dumps(row) + "\n")
            log.flush()
            print(row, flush=True)
        if minutes is not None and time.time() - t0 > minutes * 60:
            save_checkpoint(ckpt, model, opt, step, stream, cfg)
            break


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=default_out())
    ap.add_argument("--steps", type=int, default=Config.steps)
    ap.add_argument("--minutes", type=float, default=None, help="stop (resumable) after this long")
    ap.add_argument("--lr", type=float, default=Config.lr)
    ap.add_argument("--eval-every", type=int, default=Config.eval_every)
    ap.add_argument("--lora-rank", type=int, default=Config.lora_rank, help="0: full fine-tune")
    ap.add_argument("--head-lr-scale", type=float, default=Config.head_lr_scale)
    ap.add_argument("--judge-batch", type=int, default=Config.judge_batch, help="judge pairs per step")
    ap.add_argument("--no-exams", action="store_true", help="dev score only")
    ap.add_argument("--judge", default=Config.judge, choices=["cross", "late"])
    ap.add_argument("--reading", default=Config.reading, choices=["option", "rule"])
    ap.add_argument(
        "--threads", type=int, default=Config.threads, help="1 is faster when builds share the cores"
    )
    ap.add_argument("--people", action="store_true", help="add the composer's wordings of people")
    ap.add_argument("--init", default="", help="start from this checkpoint's weights")
    ap.add_argument(
        "--labelled", nargs="*", default=[], help="hand-labelled rules (people_rules/partN.jsonl)"
    )
    ap.add_argument("--labelled-share", type=float, default=0.3, help="their share of each batch")
    args = ap.parse_args()
    from train.reader.evaluate import EXAMS

    cfg = Config(
        out=args.out,
        steps=args.steps,
        lr=args.lr,
        eval_every=args.eval_every,
        judge_batch=args.judge_batch,
        lora_rank=args.lora_rank,
        head_lr_scale=args.head_lr_scale,
        threads=args.threads,
        judge=args.judge,
        reading=args.reading,
        people=args.people,
        init=args.init,
        labelled=args.labelled,
        labelled_share=args.labelled_share if args.labelled else 0.0,
    )
    run(cfg, args.minutes, [] if args.no_exams else EXAMS)


if __name__ == "__main__":
    main()
