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


def main(argv=None) -> int:
    a = parse(argv)
    keep_heap()
    torch.set_num_threads(a.threads)
    more_threads = int(a.threads_later[1]) if a.threads_later else a.threads
    os.makedirs(a.run, exist_ok=True)
    ckpt_path = os.path.join(a.run, "ckpt.pt")
    st = torch.load(ckpt_path, weights_only=False) if os.path.exists(ckpt_path) else None
    if st:  # stages by name (a checkpoint from before they were named holds their seeds)
        st["stage"] = name_of(st["stage"])
        st["counters"] = {name_of(k): v for k, v in st["counters"].items()}
    given = {w.split("=")[0] for w in (argv if argv is not None else sys.argv[1:]) if w.startswith("--")}
    if st and "--tokenizer" not in given and os.path.exists(st.get("tokenizer") or ""):
        a.tokenizer = st["tokenizer"]  # a resumed run reads as it was trained (a folded one stays folded)
    tok = Tokenizer.load(a.tokenizer)
    packer = Packer(tok)
    eval_packer = Packer(tok)

    if st:
        changed = {k: v for k, v in st.get("args", {}).items() if k in RETIRED and v != RETIRED[k]}
        if changed:
            print(
                f"train: {ckpt_path} was trained with retired flags {changed} (config.RETIRED)",
                file=sys.stderr,
            )
            return 2
        cfg = Config(**st["config"])
        a.seed = st["seed"]
        # a resumed run keeps its recipe unless the command line changes it explicitly
        for k, v in st.get("args", {}).items():
            flag = k.replace("_", "-")
            if k in STICKY and "--" + flag not in given and "--no-" + flag not in given:
                setattr(a, k, v)
        canonical(a)
        print(
            f"resuming {ckpt_path} at step {st['step']} stage {st['stage']}"
            f"{' (case folded)' if tok.fold else ''}",
            flush=True,
        )
    else:
        cfg = Config(
            vocab=len(tok),
            dim=a.dim,
            layers=a.layers,
            heads=a.heads,
            kv_heads=a.kv_heads,
            ffn=a.ffn,
        )
    torch.manual_seed(a.seed)
    model = DreamModel(cfg)
    # training-time probes only (never exported): one linear read-out per mark kind, the
    # answer-letter read-out of --aux-letter, the clause-letter read-out of --aux-clause
    probes = torch.nn.ModuleList(
        [
            *(torch.nn.Linear(cfg.dim, 1) for _ in range(marks.KINDS)),
            torch.nn.Linear(cfg.dim, len(LETTERS)),
            torch.nn.Linear(cfg.dim, len(LETTERS)),
        ]
    )
    # on the device before the optimizer exists: its loaded state then follows the parameters there
    dev = torch.device(a.device)
    model.to(dev)
    probes.to(dev)
    aux_layers = [int(x) for x in a.aux_layers.split(",")]
    point_layer = a.aux_point_layer % cfg.layers if -cfg.layers <= a.aux_point_layer < cfg.layers else None
    if (
        max(aux_layers + [a.aux_clause_layer]) >= cfg.layers
        or a.aux_clause_layer < 0
        or point_layer is None
        or not 0 <= a.aux_point_head < cfg.heads
    ):
        print(
            f"train: --aux-layers {a.aux_layers} / --aux-clause-layer {a.aux_clause_layer} / "
            f"--aux-point-layer {a.aux_point_layer} / --aux-point-head {a.aux_point_head}: "
            f"the model has layers 0..{cfg.layers - 1} and heads 0..{cfg.heads - 1}",
            file=sys.stderr,
        )
        return 2
    if a.aux_point_letter and not a.aux_point:
        # the write is read at the pointer's rows: without --aux-point there are none
        print("train: --aux-point-letter needs --aux-point (and its --aux-point-head)", file=sys.stderr)
        return 2
    opt = torch.optim.AdamW(
        [{"params": list(model.parameters())}, {"params": list(probes.parameters())}],
        lr=a.lr,
        betas=(0.9, 0.98),
        weight_decay=RETIRED["wd"],
    )
    step, stage, counters, elapsed0, parents, spread, soup = 0, a.stage, {}, 0.0, None, None, None
    lr_base = a.lr
    if st:
        model.load_state_dict(st["model"])
        # probes carry over where their shapes match (a grown or stitched checkpoint has none)
        mine = probes.state_dict()
        kept = {k: v for k, v in (st.get("probes") or {}).items() if k in mine and v.shape == mine[k].shape}
        probes.load_state_dict(kept, strict=False)
        if st.get("opt") and kept.keys() == mine.keys():
            opt.load_state_dict(st["opt"])
        elif st.get("opt"):
            # saved before these probes existed: keep the model's optimizer state, and the
            # probes' parameters join as a fresh group
            opt = torch.optim.AdamW(
                model.parameters(), lr=a.lr, betas=(0.9, 0.98), weight_decay=RETIRED["wd"]
            )
            g0 = st["opt"]["param_groups"][0]
            opt.load_state_dict(
                {
                    "state": {i: v for i, v in st["opt"]["state"].items() if i in g0["params"]},
                    "param_groups": [g0],
                }
            )
            opt.add_param_group({"params": list(probes.parameters())})
        # (a grown checkpoint, grow.py, has no "opt": a fresh optimizer)
        step, stage, counters = st["step"], st["stage"], st["counters"]
        elapsed0 = st.get("elapsed_s", 0.0)
        parents = st.get("parents")  # a stitched checkpoint's branches (stitch.py), kept for the card
        spread = st.get(
            "spread"
        )  # spread_unread.py's record, kept for the card (and against a second spread)
        soup = st.get("soup")  # average.py's record of a mean this run trains on from, kept for the card
        lr_base = st.get("lr_base", a.lr)
        if a.lr != st.get("args", {}).get("lr", a.lr):
            lr_base = a.lr  # an explicit --lr on resume wins
        if a.set_stage is not None:
            stage = a.set_stage
    path = path_of(a)
    if path is not None and stage not in path:
        stage = path[0]  # a fresh run, or a resumed one put on a new path, starts at its beginning
    print(replay_note(a, stage), flush=True)
    if st and st.get("at_end") and a.stop_at_end and stage == st["stage"] and next_stage(a, stage) is None:
        print(
            f"stage {stage} already reached --promote at the end of the path (step {st['step']})", flush=True
        )
        return 0
    with open(os.path.join(a.run, "config.json"), "w") as f:
        json.dump(
            {"config": cfg.to_dict(), "args": vars(a), "tokenizer": os.path.abspath(a.tokenizer)}, f, indent=1
        )
    log = open(os.path.join(a.run, "log.jsonl"), "a")
    print(f"model: {model.n_params()} params {cfg.to_dict()}", flush=True)

    def state():
        return {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "probes": probes.state_dict(),
            "step": step,
            "stage": stage,
            "counters": counters,
            "config": cfg.to_dict(),
            "seed": a.seed,
            "args": vars(a),
            "tokenizer": os.path.abspath(a.tokenizer),
            "elapsed_s": elapsed0 + time.time() - t0,
            "lr_base": lr_base,
            "at_end": "end" in stop,
            **({"parents": parents} if parents else {}),
            **({"spread": spread} if spread else {}),
            **({"soup": soup} if soup else {}),
        }

    # the last layer runs only at the answer slots unless a probe reads it (same numbers, less work)
    tapped = ([*aux_layers] if a.aux_binding or a.aux_letter else []) + (
        [a.aux_clause_layer] if a.aux_clause else []
    )
    full_last = bool(a.aux_point) or cfg.layers - 1 in tapped
    t0 = time.time()
    t_last, steps_last, cpu_last = t0, step, time.process_time()
    losses, accs, letter_losses = [], [], []
    aux_losses = [[] for _ in range(AUX_SLOTS)]

    # SIGTERM / SIGINT: finish the step, save the checkpoint, exit 128 + the signal's number, so a
    # recipe runner (train/nano/run_recipe.py) stops too instead of starting its next stage on this checkpoint
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _: stop.append(signum))

    def time_left():
        if stop:
            return False
        now = time.time() - t0
        return now < a.minutes * 60 and elapsed0 + now < a.total_minutes * 60

    # --workers: the same batches, packed ahead in worker processes (stream.Ahead)
    with Ahead(a, packer, a.workers) if a.workers > 0 else contextlib.nullcontext() as ahead:
        while step < a.steps and time_left():
            if ahead is not None:
                b, counters = ahead.batch(step, stage, counters)
            else:
                b = step_batch(a, packer, step, stage, counters)
            b = on(b, dev)
            lr = lr_base * min(1.0, (step + 1) / a.warmup)
            if a.anneal:
                lo, hi = a.anneal
                lr *= 1.0 - 0.95 * min(1.0, max(0.0, (step - lo) / max(1, hi - lo)))
            for g in opt.param_groups:
                g["lr"] = lr
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=a.bf16):
                taps, atts = [], []
                h = model.hidden(
                    b["ids"],
                    b["pos"],
                    b["seg"],
                    taps,
                    atts if a.aux_point else None,
                    point_layer,
                    targets=None if full_last else (b["t_batch"], b["t_pos"]),
                )
                z = model.head(h if not full_last else h[b["t_batch"], b["t_pos"]]).float()
            if a.read_softmax:
                z = z.masked_fill(~read_tokens(b, tok, packer.letter_ids), float("-inf"))
            loss = F.cross_entropy(z, b["t_tok"])
            m = b["aux_m"]
            if a.aux_binding and m.sum() > 0:
                for k, layer in enumerate(aux_layers):
                    p = probes[k](taps[layer].float()).squeeze(-1)
                    bce = F.binary_cross_entropy_with_logits(p, b["aux_lab"][..., k], reduction="none")
                    aux_loss = (bce * m).sum() / m.sum()
                    aux_losses[k].append(aux_loss.item())
                    loss = loss + a.aux_binding * aux_loss
            if a.aux_letter and (b["aux_letter"] >= 0).any():
                z_l = probes[marks.KINDS](taps[aux_layers[marks.DIRECTION]].float())
                aux_loss = F.cross_entropy(z_l.flatten(0, 1), b["aux_letter"].flatten(), ignore_index=-100)
                aux_losses[marks.KINDS].append(aux_loss.item())
                loss = loss + a.aux_letter * aux_loss
            if a.aux_clause and (b["aux_clause"] >= 0).any():
                if a.aux_clause_tied:
                    z_c = model.head(model.norm(taps[a.aux_clause_layer]))[..., packer.letter_ids].float()
                else:
                    z_c = probes[marks.KINDS + 1](taps[a.aux_clause_layer].float())
                aux_loss = F.cross_entropy(z_c.flatten(0, 1), b["aux_clause"].flatten(), ignore_index=-100)
                aux_losses[marks.KINDS + 1].append(aux_loss.item())
                loss = loss + a.aux_clause * aux_loss
            if a.aux_point and len(b["point_b"]):
                # the attention mass the head puts on the clause that answers
                p_att, y_att = atts[0]
                rows = p_att[b["point_b"], a.aux_point_head, b["point_row"], :].float()  # [N, T]
                mass = (rows * b["point_mask"]).sum(-1)
                aux_loss = -torch.log(mass.clamp_min(1e-6)).mean()
                aux_losses[marks.KINDS + 2].append(aux_loss.item())
                loss = loss + a.aux_point * aux_loss
                if a.aux_point_letter:
                    # the head's own write at those rows (its output through its slice of W_o), read
                    # as letters by the final norm's gain and the model's output head
                    h0, hd = a.aux_point_head * cfg.head_dim, cfg.head_dim
                    out = y_att[b["point_b"], a.aux_point_head, b["point_row"], :]  # [N, head_dim]
                    write = out @ model.blocks[point_layer].o.weight[:, h0 : h0 + hd].t()
                    z_w = model.head(write * model.norm.weight)[:, packer.letter_ids]
                    aux_loss = F.cross_entropy(z_w.float(), b["point_letter"])
                    aux_losses[marks.KINDS + 3].append(aux_loss.item())
                    loss = loss + a.aux_point_letter * aux_loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            rows = b["letter_rows"]
            with torch.no_grad():
                letter_losses.append(F.cross_entropy(z[rows], b["t_tok"][rows]).item())
                accs.append(
                    letter_accuracy(z[rows].detach(), packer.letter_ids, b["letter_sets"], b["letter_ans"])
                    .mean()
                    .item()
                )
            losses.append(loss.item())

            if step % a.eval_every == 0:
                acc, chance = evaluate(model, eval_packer, a.seed, stage, a.eval_tables, dev)
                now = time.time()
                rec = {
                    "step": step,
                    "stage": stage,
                    "loss": sum(losses) / len(losses),
                    "train_acc": sum(accs) / len(accs),
                    "letter_loss": sum(letter_losses) / len(letter_losses),
                    **{f"aux{k}": sum(v) / len(v) for k, v in enumerate(aux_losses) if v},
                    "eval_acc": acc,
                    "chance": chance,
                    "steps_per_s": (step - steps_last) / (now - t_last),
                    "steps_per_cpu_s": (step - steps_last) / max(1e-9, time.process_time() - cpu_last),
                    "minutes": (now - t0) / 60,
                    "total_minutes": (elapsed0 + now - t0) / 60,
                    "seq_len": b["ids"].shape[1],
                }
                print(
                    json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in rec.items()}),
                    flush=True,
                )
                log.write(json.dumps(rec) + "\n")
                log.flush()
                losses, accs, letter_losses = [], [], []
                aux_losses = [[] for _ in range(AUX_SLOTS)]
                if a.lr2 > 0 and acc >= a.lr2_acc and lr_base != a.lr2:
                    lr_base = a.lr2
                    print(f"lr -> {lr_base}", flush=True)
                if (
                    a.threads_later
                    and os.path.exists(a.threads_later[0])
                    and torch.get_num_threads() != more_threads
                ):
                    torch.set_num_threads(more_threads)
                    print(f"{a.threads_later[0]} exists: {more_threads} threads from step {step}", flush=True)
                t_last, steps_last, cpu_last = time.time(), step, time.process_time()
                if acc >= a.promote and next_stage(a, stage) is not None:
                    stage = next_stage(a, stage)
                    print(f"promoted to stage {stage}", flush=True)
                elif acc >= a.promote and a.stop_at_end:
                    print(f"stage {stage} reached {a.promote} at the end of the path", flush=True)
                    stop.append("end")
            if step % RETIRED["ckpt_every"] == 0:
                save(ckpt_path, state())
    save(ckpt_path, state())
    log.close()
    print(f"stopped at step {step}, stage {stage}; checkpoint {ckpt_path}", flush=True)
    signals = [x for x in stop if isinstance(x, int)]
    return 128 + signals[0] if signals else 0


if __name__ == "__main__":
    sys.exit(main())
