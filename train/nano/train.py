"""Train the embedded mind: masked-diffusion on the answer slot, curriculum, checkpoint/resume.

    OPENBLAS_CORETYPE=SkylakeX python3 -m train.nano.train --run train/runs/probe --minutes 10 \
        --dim 64 --layers 2 --heads 4 --kv-heads 2 --ffn 192 --batch 16 --lr 3e-3

Reproducible: the model init comes from torch.manual_seed(seed); example i of stage s is
corpus.generate.example(seed, s, i); per-step choices use random.Random(f"{seed}:step:{n}").
So a run resumed from its checkpoint (same --run dir, automatic) continues the same stream.
Curriculum: start at --stage; when the eval accuracy on fresh tables of the current stage
reaches --promote, move to the next stage; --mix-prev of each batch replays earlier stages.
Every flag is a field of train/nano/config.py's TrainConfig (its default and help beside it).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sys
import time
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from .batching import LETTERS, Packer
from .config import RETIRED, STICKY, TrainConfig, argparser
from .corpus import marks
from .corpus.curriculum import STAGES, name_of, order
from .corpus.curriculum import stage as get_stage
from .corpus.generate import example
from .heap import keep_heap
from .model import Config, DreamModel
from .stream import Ahead, path_of, path_replay, replay_range, step_batch
from .tokenizer.bpe import Tokenizer

EVAL_SEED_OFFSET = 1_000_003  # eval tables come from a stream training never reads
# logged aux losses: one per mark kind, then the answer letter, clause, pointer and pointer-write losses
AUX_SLOTS = marks.KINDS + 4


def parse(argv=None) -> TrainConfig:
    """The command line as a TrainConfig (train/nano/config.py: one field per flag), checked."""
    ap = argparser(__doc__)
    a = TrainConfig(**vars(ap.parse_args(argv)))
    if a.threads_later and not (a.threads_later[1].isdigit() and int(a.threads_later[1]) > 0):
        ap.error(f"--threads-later: N must be a positive integer, got '{a.threads_later[1]}'")
    if a.workers < 0:
        ap.error(f"--workers {a.workers}: expected 0 (inline) or a number of worker processes")
    try:
        dev = torch.device(a.device)
    except RuntimeError as e:
        ap.error(f"--device {a.device!r}: {e}")
    if dev.type == "cuda" and not torch.cuda.is_available():
        ap.error(f"--device {a.device}: this torch sees no CUDA device")
    try:
        canonical(a)
    except KeyError as e:
        ap.error(e.args[0])
    if a.path is not None and len(set(a.path.split(","))) != len(a.path.split(",")):
        ap.error(f"--path {a.path!r}: each stage once")
    layers = a.aux_layers.split(",")
    if len(layers) != marks.KINDS or not all(x.isdigit() for x in layers):
        ap.error(
            f"--aux-layers {a.aux_layers!r}: expected {marks.KINDS} layer numbers (noun, direction), e.g. 0,1"
        )
    return a


def canonical(a: TrainConfig) -> None:
    """The stage flags as stage names (a number is the stage of that seed: command lines and
    checkpoints from before the stages were named); an explicit empty --path / --replay clears a
    resumed run's (sticky) list. KeyError names an unknown stage."""
    for k in ("stage", "set_stage", "max_stage", "replay_from", "replay_to"):
        if getattr(a, k) is not None:
            setattr(a, k, name_of(getattr(a, k)))
    for k in ("path", "replay"):
        value = getattr(a, k)
        setattr(a, k, ",".join(name_of(x) for x in str(value).split(",")) if value else None)


def next_stage(a, stage: str) -> str | None:
    """The stage a promotion moves to, or None at the end (of --path, else --max-stage)."""
    path = path_of(a)
    if path is None:
        names = list(STAGES)
        i = order(stage) + 1
        return names[i] if i < len(names) and i <= order(a.max_stage) else None
    i = path.index(stage) if stage in path else -1
    return path[i + 1] if i + 1 < len(path) else None


def letter_accuracy(logits_rows, letter_ids, sets, answers):
    """Accuracy of argmax restricted to each table's option letters (what the runtime reads)."""
    z = logits_rows[:, letter_ids]  # [N, 6]
    allowed = torch.full_like(z, float("-inf"))
    for r, s in enumerate(sets):
        allowed[r, s] = 0.0
    return ((z + allowed).argmax(-1) == answers).float()


def on(b: dict, dev: torch.device) -> dict:
    """A packed batch's tensors on the model's device (the rest as it is)."""
    return {k: v.to(dev) if torch.is_tensor(v) else v for k, v in b.items()}


def on_cpu(x):
    """A state with every tensor on the CPU: a checkpoint written on a GPU loads anywhere."""
    if torch.is_tensor(x):
        return x.cpu()
    if isinstance(x, dict):
        return {k: on_cpu(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(on_cpu(v) for v in x)
    return x


def evaluate(model, packer, seed, stage, n_tables, dev=torch.device("cpu")):
    model.eval()
    rng = random.Random(f"{seed}:eval:{get_stage(stage).seed}")
    exs = [example(seed + EVAL_SEED_OFFSET, stage, i) for i in range(n_tables)]
    hits, chance = [], []
    with torch.no_grad():
        for i in range(0, n_tables, 32):
            chunk = exs[i : i + 32]
            b = on(packer.batch(chunk, rng), dev)
            h = model.hidden(b["ids"], b["pos"], b["seg"])
            rows = b["letter_rows"]
            hz = h[b["t_batch"][rows], b["t_pos"][rows]]
            hits.append(letter_accuracy(model.head(hz), packer.letter_ids, b["letter_sets"], b["letter_ans"]))
            chance += [1.0 / len(s) for s in b["letter_sets"]]
    model.train()
    return torch.cat(hits).mean().item(), sum(chance) / len(chance)


def replay_note(a, stage: str) -> str:
    """What --mix-prev replays, said once at start: a sticky --replay-to below --replay-from
    silently replayed nothing in one early run."""
    if a.mix_prev <= 0:
        return "replay: none (--mix-prev 0)"
    listed = path_replay(a, stage)
    if listed:
        return f"replay: stages {','.join(listed)} in {a.mix_prev:.0%} of examples"
    if path_of(a) is not None and stage in path_of(a):
        return "replay: none yet (the first stage of --path)"
    pool = replay_range(stage, a.replay_from, a.replay_to)
    if not pool:
        return f"replay: none (stages {a.replay_from}..{a.replay_to or 'the one before ' + stage} is empty)"
    return f"replay: stages {pool[0]}..{pool[-1]} in {a.mix_prev:.0%} of examples"


def save(path, state):
    tmp = path + ".tmp"
    torch.save(on_cpu(state), tmp)
    os.replace(tmp, path)


def read_tokens(b: dict, tok: Tokenizer, letter_ids: list[int]) -> torch.Tensor:
    """[vocab] bool: the tokens this batch reads or must predict, the letters and the specials."""
    keep = torch.zeros(len(tok), dtype=torch.bool, device=b["ids"].device)
    for ids in (b["ids"].flatten(), b["t_tok"], letter_ids, list(tok.special_ids.values())):
        keep[ids] = True
    return keep


class UsageError(Exception):
    """A run that cannot start as asked: one line on stderr, exit 2."""


@dataclass
class Run:
    """A run's state besides the model and the optimizer: where it is and what it carries on."""

    step: int
    stage: str
    counters: dict
    lr_base: float
    elapsed0: float = 0.0  # the wall time of the invocations before this one
    # parents (stitch.py), spread (spread_unread.py), soup (average.py): records kept for the card
    extras: dict = field(default_factory=dict)
    stop: list = field(default_factory=list)  # the signals received, or "end" (--stop-at-end)
    t0: float = field(default_factory=time.time)


class Meters:
    """The per-step numbers averaged over an eval interval, and its speed."""

    def __init__(self, step: int):
        self.reset(step)

    def reset(self, step: int) -> None:
        self.losses, self.accs, self.letter_losses = [], [], []
        self.aux = [[] for _ in range(AUX_SLOTS)]
        self.t, self.step, self.cpu = time.time(), step, time.process_time()

    def record(self, r: Run, acc: float, chance: float, seq_len: int) -> dict:
        now = time.time()
        return {
            "step": r.step,
            "stage": r.stage,
            "loss": sum(self.losses) / len(self.losses),
            "train_acc": sum(self.accs) / len(self.accs),
            "letter_loss": sum(self.letter_losses) / len(self.letter_losses),
            **{f"aux{k}": sum(v) / len(v) for k, v in enumerate(self.aux) if v},
            "eval_acc": acc,
            "chance": chance,
            "steps_per_s": (r.step - self.step) / (now - self.t),
            "steps_per_cpu_s": (r.step - self.step) / max(1e-9, time.process_time() - self.cpu),
            "minutes": (now - r.t0) / 60,
            "total_minutes": (r.elapsed0 + now - r.t0) / 60,
            "seq_len": seq_len,
        }


def load_checkpoint(path: str) -> dict | None:
    """The run's checkpoint, if any, its stages by name (one from before they were named holds
    their seeds)."""
    if not os.path.exists(path):
        return None
    st = torch.load(path, weights_only=False)
    st["stage"] = name_of(st["stage"])
    st["counters"] = {name_of(k): v for k, v in st["counters"].items()}
    return st


def resume_args(a: TrainConfig, st: dict, given: set[str], ckpt_path: str) -> None:
    """A resumed run keeps its seed and its recipe (the sticky flags) unless the command line
    names a flag again; a checkpoint trained with a retired flag's other value is refused."""
    changed = {k: v for k, v in st.get("args", {}).items() if k in RETIRED and v != RETIRED[k]}
    if changed:
        raise UsageError(f"{ckpt_path} was trained with retired flags {changed} (config.RETIRED)")
    a.seed = st["seed"]
    for k, v in st.get("args", {}).items():
        flag = k.replace("_", "-")
        if k in STICKY and "--" + flag not in given and "--no-" + flag not in given:
            setattr(a, k, v)
    canonical(a)


def new_model(a: TrainConfig, cfg: Config, dev: torch.device) -> tuple[DreamModel, torch.nn.ModuleList]:
    """The model and the training-time probes (never exported): one linear read-out per mark
    kind, the answer-letter read-out of --aux-letter, the clause-letter read-out of --aux-clause;
    seeded, on the device (before the optimizer exists: its loaded state then follows them)."""
    torch.manual_seed(a.seed)
    model = DreamModel(cfg)
    probes = torch.nn.ModuleList(
        [
            *(torch.nn.Linear(cfg.dim, 1) for _ in range(marks.KINDS)),
            torch.nn.Linear(cfg.dim, len(LETTERS)),
            torch.nn.Linear(cfg.dim, len(LETTERS)),
        ]
    )
    model.to(dev)
    probes.to(dev)
    return model, probes


def probe_layers(a: TrainConfig, cfg: Config) -> tuple[list[int], int]:
    """(--aux-layers, the --aux-point layer), checked against the model's layers and heads."""
    aux_layers = [int(x) for x in a.aux_layers.split(",")]
    point_layer = a.aux_point_layer % cfg.layers if -cfg.layers <= a.aux_point_layer < cfg.layers else None
    if (
        max(aux_layers + [a.aux_clause_layer]) >= cfg.layers
        or a.aux_clause_layer < 0
        or point_layer is None
        or not 0 <= a.aux_point_head < cfg.heads
    ):
        raise UsageError(
            f"--aux-layers {a.aux_layers} / --aux-clause-layer {a.aux_clause_layer} / "
            f"--aux-point-layer {a.aux_point_layer} / --aux-point-head {a.aux_point_head}: "
            f"the model has layers 0..{cfg.layers - 1} and heads 0..{cfg.heads - 1}"
        )
    if a.aux_point_letter and not a.aux_point:
        # the write is read at the pointer's rows: without --aux-point there are none
        raise UsageError("--aux-point-letter needs --aux-point (and its --aux-point-head)")
    return aux_layers, point_layer


def adamw(params, a: TrainConfig) -> torch.optim.AdamW:
    return torch.optim.AdamW(params, lr=a.lr, betas=(0.9, 0.98), weight_decay=RETIRED["wd"])


def restore(a: TrainConfig, st: dict | None, model, probes) -> torch.optim.AdamW:
    """The optimizer, and a checkpoint's weights and optimizer state when resuming. Probes carry
    over where their shapes match (a grown or stitched checkpoint has none); a checkpoint saved
    before these probes existed keeps the model's optimizer state and the probes join as a fresh
    group; a grown checkpoint (grow.py) has no optimizer state: a fresh optimizer."""
    opt = adamw([{"params": list(model.parameters())}, {"params": list(probes.parameters())}], a)
    if not st:
        return opt
    model.load_state_dict(st["model"])
    mine = probes.state_dict()
    kept = {k: v for k, v in (st.get("probes") or {}).items() if k in mine and v.shape == mine[k].shape}
    probes.load_state_dict(kept, strict=False)
    if st.get("opt") and kept.keys() == mine.keys():
        opt.load_state_dict(st["opt"])
    elif st.get("opt"):
        opt = adamw(model.parameters(), a)
        g0 = st["opt"]["param_groups"][0]
        opt.load_state_dict(
            {
                "state": {i: v for i, v in st["opt"]["state"].items() if i in g0["params"]},
                "param_groups": [g0],
            }
        )
        opt.add_param_group({"params": list(probes.parameters())})
    return opt


def run_state(a: TrainConfig, st: dict | None) -> Run:
    """Where the run starts: step 0 at --stage, or where the checkpoint stopped (--set-stage and
    an explicit --lr override it); a path's run starts at the path's first stage unless it is on it."""
    if not st:
        r = Run(step=0, stage=a.stage, counters={}, lr_base=a.lr)
    else:
        r = Run(
            step=st["step"],
            stage=a.set_stage if a.set_stage is not None else st["stage"],
            counters=st["counters"],
            lr_base=a.lr if a.lr != st.get("args", {}).get("lr", a.lr) else st.get("lr_base", a.lr),
            elapsed0=st.get("elapsed_s", 0.0),
            extras={k: st[k] for k in ("parents", "spread", "soup") if st.get(k)},
        )
    path = path_of(a)
    if path is not None and r.stage not in path:
        r.stage = path[0]
    return r


def checkpoint_state(a: TrainConfig, cfg: Config, model, opt, probes, r: Run) -> dict:
    return {
        "model": model.state_dict(),
        "opt": opt.state_dict(),
        "probes": probes.state_dict(),
        "step": r.step,
        "stage": r.stage,
        "counters": r.counters,
        "config": cfg.to_dict(),
        "seed": a.seed,
        "args": vars(a),
        "tokenizer": os.path.abspath(a.tokenizer),
        "elapsed_s": r.elapsed0 + time.time() - r.t0,
        "lr_base": r.lr_base,
        "at_end": "end" in r.stop,
        **r.extras,
    }


def lr_at(a: TrainConfig, lr_base: float, step: int) -> float:
    """Linear warm-up, then --anneal's linear fall to 5 % between its two steps."""
    lr = lr_base * min(1.0, (step + 1) / a.warmup)
    if a.anneal:
        lo, hi = a.anneal
        lr *= 1.0 - 0.95 * min(1.0, max(0.0, (step - lo) / max(1, hi - lo)))
    return lr


@dataclass
class Step:
    """What a training step needs besides the batch: the model, its probes and their layers."""

    a: TrainConfig
    cfg: Config
    model: DreamModel
    probes: torch.nn.ModuleList
    opt: torch.optim.AdamW
    tok: Tokenizer
    letter_ids: list[int]
    aux_layers: list[int]
    point_layer: int
    dev: torch.device

    def __post_init__(self):
        a = self.a
        # the last layer runs only at the answer slots unless a probe reads it (same numbers, less work)
        tapped = ([*self.aux_layers] if a.aux_binding or a.aux_letter else []) + (
            [a.aux_clause_layer] if a.aux_clause else []
        )
        self.full_last = bool(a.aux_point) or self.cfg.layers - 1 in tapped

    def forward(self, b: dict) -> tuple[torch.Tensor, list, list]:
        """The answer slots' logits (float32), the layer taps and the pointer head's attention."""
        a, model = self.a, self.model
        with torch.autocast(self.dev.type, dtype=torch.bfloat16, enabled=a.bf16):
            taps, atts = [], []
            h = model.hidden(
                b["ids"],
                b["pos"],
                b["seg"],
                taps,
                atts if a.aux_point else None,
                self.point_layer,
                targets=None if self.full_last else (b["t_batch"], b["t_pos"]),
            )
            z = model.head(h if not self.full_last else h[b["t_batch"], b["t_pos"]]).float()
        if a.read_softmax:
            z = z.masked_fill(~read_tokens(b, self.tok, self.letter_ids), float("-inf"))
        return z, taps, atts

    def probe_losses(
        self, b: dict, taps: list, atts: list, aux_log: list, total: torch.Tensor
    ) -> torch.Tensor:
        """`total` plus the weighted probe losses of --aux-binding, --aux-letter, --aux-clause,
        --aux-point and --aux-point-letter on this batch (each logged in its slot of aux_log)."""
        a, probes = self.a, self.probes
        m = b["aux_m"]
        if a.aux_binding and m.sum() > 0:
            for k, layer in enumerate(self.aux_layers):
                p = probes[k](taps[layer].float()).squeeze(-1)
                bce = F.binary_cross_entropy_with_logits(p, b["aux_lab"][..., k], reduction="none")
                loss = (bce * m).sum() / m.sum()
                aux_log[k].append(loss.item())
                total = total + a.aux_binding * loss
        if a.aux_letter and (b["aux_letter"] >= 0).any():
            z_l = probes[marks.KINDS](taps[self.aux_layers[marks.DIRECTION]].float())
            loss = F.cross_entropy(z_l.flatten(0, 1), b["aux_letter"].flatten(), ignore_index=-100)
            aux_log[marks.KINDS].append(loss.item())
            total = total + a.aux_letter * loss
        if a.aux_clause and (b["aux_clause"] >= 0).any():
            if a.aux_clause_tied:
                z_c = self.model.head(self.model.norm(taps[a.aux_clause_layer]))[..., self.letter_ids].float()
            else:
                z_c = probes[marks.KINDS + 1](taps[a.aux_clause_layer].float())
            loss = F.cross_entropy(z_c.flatten(0, 1), b["aux_clause"].flatten(), ignore_index=-100)
            aux_log[marks.KINDS + 1].append(loss.item())
            total = total + a.aux_clause * loss
        if a.aux_point and len(b["point_b"]):
            total = self.pointer_losses(b, atts, aux_log, total)
        return total

    def pointer_losses(self, b: dict, atts: list, aux_log: list, total: torch.Tensor) -> torch.Tensor:
        """--aux-point: the attention mass the head puts on the clause that answers; with
        --aux-point-letter, the head's own write at those rows (its output through its slice of
        W_o) read as letters by the final norm's gain and the model's output head."""
        a, model = self.a, self.model
        p_att, y_att = atts[0]
        rows = p_att[b["point_b"], a.aux_point_head, b["point_row"], :].float()  # [N, T]
        mass = (rows * b["point_mask"]).sum(-1)
        loss = -torch.log(mass.clamp_min(1e-6)).mean()
        aux_log[marks.KINDS + 2].append(loss.item())
        total = total + a.aux_point * loss
        if a.aux_point_letter:
            h0, hd = a.aux_point_head * self.cfg.head_dim, self.cfg.head_dim
            out = y_att[b["point_b"], a.aux_point_head, b["point_row"], :]  # [N, head_dim]
            write = out @ model.blocks[self.point_layer].o.weight[:, h0 : h0 + hd].t()
            z_w = model.head(write * model.norm.weight)[:, self.letter_ids]
            loss = F.cross_entropy(z_w.float(), b["point_letter"])
            aux_log[marks.KINDS + 3].append(loss.item())
            total = total + a.aux_point_letter * loss
        return total

    def __call__(self, b: dict, lr: float, meters: Meters) -> None:
        """One optimizer step on batch b at learning rate lr; its numbers go to meters."""
        for g in self.opt.param_groups:
            g["lr"] = lr
        z, taps, atts = self.forward(b)
        loss = self.probe_losses(b, taps, atts, meters.aux, F.cross_entropy(z, b["t_tok"]))
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.opt.step()
        rows = b["letter_rows"]
        with torch.no_grad():
            meters.letter_losses.append(F.cross_entropy(z[rows], b["t_tok"][rows]).item())
            acc = letter_accuracy(z[rows].detach(), self.letter_ids, b["letter_sets"], b["letter_ans"])
            meters.accs.append(acc.mean().item())
        meters.losses.append(loss.item())


def more_threads_now(a: TrainConfig, threads: int, step: int) -> None:
    """--threads-later FILE N: N threads from the first eval after FILE appears (a branch taking
    the core its sibling branch frees when it ends)."""
    if a.threads_later and os.path.exists(a.threads_later[0]) and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
        print(f"{a.threads_later[0]} exists: {threads} threads from step {step}", flush=True)


def after_eval(a: TrainConfig, r: Run, acc: float) -> None:
    """An eval's consequences: --lr2 once it reaches --lr2-acc; promotion to the next stage at
    --promote, or at the end of the path with --stop-at-end, the run's end."""
    if a.lr2 > 0 and acc >= a.lr2_acc and r.lr_base != a.lr2:
        r.lr_base = a.lr2
        print(f"lr -> {r.lr_base}", flush=True)
    more_threads_now(a, int(a.threads_later[1]) if a.threads_later else a.threads, r.step)
    if acc >= a.promote and next_stage(a, r.stage) is not None:
        r.stage = next_stage(a, r.stage)
        print(f"promoted to stage {r.stage}", flush=True)
    elif acc >= a.promote and a.stop_at_end:
        print(f"stage {r.stage} reached {a.promote} at the end of the path", flush=True)
        r.stop.append("end")


def prepare(argv) -> tuple:
    """The run as the command line and its checkpoint make it: (args, checkpoint path and state,
    tokenizer, model config, model, probes, optimizer, run state); UsageError if it cannot start."""
    a = parse(argv)
    keep_heap()
    torch.set_num_threads(a.threads)
    os.makedirs(a.run, exist_ok=True)
    ckpt_path = os.path.join(a.run, "ckpt.pt")
    st = load_checkpoint(ckpt_path)
    given = {w.split("=")[0] for w in (argv if argv is not None else sys.argv[1:]) if w.startswith("--")}
    if st and "--tokenizer" not in given and os.path.exists(st.get("tokenizer") or ""):
        a.tokenizer = st["tokenizer"]  # a resumed run reads as it was trained (a folded one stays folded)
    tok = Tokenizer.load(a.tokenizer)
    if st:
        resume_args(a, st, given, ckpt_path)
        fold = " (case folded)" if tok.fold else ""
        print(f"resuming {ckpt_path} at step {st['step']} stage {st['stage']}{fold}", flush=True)
        cfg = Config(**st["config"])
    else:
        cfg = Config(
            vocab=len(tok), dim=a.dim, layers=a.layers, heads=a.heads, kv_heads=a.kv_heads, ffn=a.ffn
        )
    model, probes = new_model(a, cfg, torch.device(a.device))
    aux_layers, point_layer = probe_layers(a, cfg)
    opt = restore(a, st, model, probes)
    return a, ckpt_path, st, tok, cfg, model, probes, opt, run_state(a, st), aux_layers, point_layer


def main(argv=None) -> int:
    try:
        a, ckpt_path, st, tok, cfg, model, probes, opt, r, aux_layers, point_layer = prepare(argv)
    except UsageError as e:
        print(f"train: {e}", file=sys.stderr)
        return 2
    print(replay_note(a, r.stage), flush=True)
    if (
        st
        and st.get("at_end")
        and a.stop_at_end
        and r.stage == st["stage"]
        and next_stage(a, r.stage) is None
    ):
        print(
            f"stage {r.stage} already reached --promote at the end of the path (step {st['step']})",
            flush=True,
        )
        return 0
    with open(os.path.join(a.run, "config.json"), "w") as f:
        json.dump(
            {"config": cfg.to_dict(), "args": vars(a), "tokenizer": os.path.abspath(a.tokenizer)}, f, indent=1
        )
    print(f"model: {model.n_params()} params {cfg.to_dict()}", flush=True)
    packer, eval_packer, dev = Packer(tok), Packer(tok), torch.device(a.device)
    step = Step(a, cfg, model, probes, opt, tok, packer.letter_ids, aux_layers, point_layer, dev)
    train_loop(a, r, step, packer, eval_packer, ckpt_path)
    print(f"stopped at step {r.step}, stage {r.stage}; checkpoint {ckpt_path}", flush=True)
    signals = [x for x in r.stop if isinstance(x, int)]
    return 128 + signals[0] if signals else 0


def train_loop(
    a: TrainConfig, r: Run, step: Step, packer: Packer, eval_packer: Packer, ckpt_path: str
) -> None:
    """Steps until --steps, the time budget or a signal; an eval (logged) every --eval-every
    steps, a checkpoint every RETIRED["ckpt_every"] and at the end. SIGTERM / SIGINT finish the
    step and save, so a recipe runner (run_recipe.py) stops too instead of starting its next
    stage on this checkpoint. --workers: the same batches, packed ahead in worker processes."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _: r.stop.append(signum))
    r.t0 = time.time()
    meters = Meters(r.step)

    def save_now() -> None:
        save(ckpt_path, checkpoint_state(a, step.cfg, step.model, step.opt, step.probes, r))

    def time_left() -> bool:
        now = time.time() - r.t0
        return not r.stop and now < a.minutes * 60 and r.elapsed0 + now < a.total_minutes * 60

    with open(os.path.join(a.run, "log.jsonl"), "a") as log:
        with Ahead(a, packer, a.workers) if a.workers > 0 else contextlib.nullcontext() as ahead:
            while r.step < a.steps and time_left():
                if ahead is not None:
                    b, r.counters = ahead.batch(r.step, r.stage, r.counters)
                else:
                    b = step_batch(a, packer, r.step, r.stage, r.counters)
                b = on(b, step.dev)
                step(b, lr_at(a, r.lr_base, r.step), meters)
                r.step += 1
                if r.step % a.eval_every == 0:
                    acc, chance = evaluate(step.model, eval_packer, a.seed, r.stage, a.eval_tables, step.dev)
                    rec = meters.record(r, acc, chance, b["ids"].shape[1])
                    print(
                        json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in rec.items()}),
                        flush=True,
                    )
                    log.write(json.dumps(rec) + "\n")
                    log.flush()
                    after_eval(a, r, acc)
                    meters.reset(r.step)
                if r.step % RETIRED["ckpt_every"] == 0:
                    save_now()
        save_now()


if __name__ == "__main__":
    sys.exit(main())
