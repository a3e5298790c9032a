"""meadow-reader in PyTorch: one BERT encoder (all-MiniLM-L6-v2) and three small heads.

    tag      per rule token, for one option: O / B / I / AND / OR / PRON / ANTE (data.TAGS)
    default  from the mean of the option's tokens: is this option the rule's default?
    judge    from the mean of all tokens of (condition, situation): does the condition hold?
    op       from the same mean: the literal's numeric comparison, or "none" (data.OPS)
    numbers  per token of (condition, situation): threshold / value tags (data.JUDGE_TAGS)

The runtime (C++) runs the same encoder from GGUF and the heads as extra tensors.
"""

from __future__ import annotations

import os

import torch
from torch import nn
from transformers import BertModel, BertTokenizerFast

from train.reader.data import JUDGE_TAGS, OPS, RULE_TAGS, TAGS


class Reader(nn.Module):
    def __init__(self, base_dir: str, judge: str = "cross", reading: str = "option", lora_rank: int = 0):
        super().__init__()
        self.judge_kind = judge
        self.reading_kind = reading
        self.bert = BertModel.from_pretrained(base_dir, add_pooling_layer=False)
        # The word embeddings stay as pretrained: half the parameters, none of the reading, and
        # the shipped delta then leaves them out.
        self.bert.embeddings.word_embeddings.weight.requires_grad_(False)
        if lora_rank:
            # Low-rank updates of every matrix of the encoder (peft's LoRA), the rest frozen: the
            # shipped delta is then exactly the adapters' product, megabytes instead of 22 MB.
            from peft import LoraConfig, get_peft_model

            cfg = LoraConfig(
                r=lora_rank, lora_alpha=2 * lora_rank, target_modules=["query", "key", "value", "dense"]
            )
            self.bert = get_peft_model(self.bert, cfg)
        h = self.bert.config.hidden_size
        if reading == "option":
            self.tag = nn.Linear(h, len(TAGS))
            self.default = nn.Linear(h, 1)
        self.op = nn.Linear(h, len(OPS))
        if reading == "rule":
            # one pass per rule (data.RULE_TAGS): tags, antecedent flags, literal -> option links
            self.rule_tag = nn.Linear(h, len(RULE_TAGS))
            self.ante = nn.Linear(h, 1)
            self.link_q = nn.Linear(3 * h, h)  # a clause, and the words on either side of it
            self.link_k = nn.Linear(h, h)
            self.rule_default = nn.Linear(h, 1)
        elif reading != "option":
            raise ValueError(f"reading {reading!r}: option or rule")
        if judge == "cross":
            self.judge = nn.Linear(h, 1)
            self.numbers = nn.Linear(h, len(JUDGE_TAGS))
        elif judge == "late":
            # The literal and the situation are encoded apart (the literal once per rule, the
            # situation once per decision); one cross-attention layer lets the literal's tokens
            # look at the situation's, then a small MLP judges from both means and that look.
            self.look = nn.MultiheadAttention(h, self.bert.config.num_attention_heads, batch_first=True)
            self.look_norm = nn.LayerNorm(h)
            self.judge = nn.Sequential(nn.Linear(5 * h, h), nn.GELU(), nn.Linear(h, 1))
            self.thresholds = nn.Linear(h, 3)  # O / T1 / T2 per literal token
            self.value = nn.Linear(2 * h, 1)  # per situation token, given the literal's mean
        else:
            raise ValueError(f"judge {judge!r}: cross or late")

    def merged(self) -> Reader:
        """The LoRA adapters folded into the encoder's weights (a plain BertModel again)."""
        if hasattr(self.bert, "merge_and_unload"):
            self.bert = self.bert.merge_and_unload()
        return self

    def encode(self, batch: dict) -> torch.Tensor:
        return self.bert(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            token_type_ids=batch["token_type_ids"],
        ).last_hidden_state

    def read(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """Tag logits [B, T, tags] and default logits [B]."""
        h = self.encode(batch)
        first = batch["attention_mask"] * (1 - batch["token_type_ids"])
        return self.tag(h), self.default(mean(h, first)).squeeze(-1)

    def holds(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Judge logits [B], op logits [B, ops], number tag logits [B, T, tags]."""
        h = self.encode(batch)
        m = mean(h, batch["attention_mask"])
        return self.judge(m).squeeze(-1), self.op(m), self.numbers(h)

    def read_rule(self, batch: dict, clause_masks: list[torch.Tensor], opt_masks: torch.Tensor):
        """One reading pass. clause_masks: three [B, C, T] masks (each clause's literal tokens,
        the tokens before it, the tokens after it); opt_masks [B, O, T] each option's listing
        tokens. Returns tag logits [B, T, tags], antecedent logits [B, T], link logits [B, C, O]
        (which option each clause chooses), default logits [B, O]."""
        h = self.encode(batch)
        opt = pool(h, opt_masks)
        return (
            self.rule_tag(h),
            self.ante(h).squeeze(-1),
            self.link(h, clause_masks, opt),
            self.rule_default(opt).squeeze(-1),
        )

    def link(self, h: torch.Tensor, clause_masks: list[torch.Tensor], opt: torch.Tensor) -> torch.Tensor:
        q = self.link_q(torch.cat([pool(h, m) for m in clause_masks], -1))
        return q @ self.link_k(opt).transpose(1, 2) / h.shape[-1] ** 0.5

    # ---- the late judge ---------------------------------------------------------------------

    def literal_part(self, batch: dict) -> dict:
        """Per literal (once per rule): token states, mean, op logits, threshold tag logits."""
        h = self.encode(batch)
        u = mean(h, batch["attention_mask"])
        return {"h": h, "mask": batch["attention_mask"], "u": u, "op": self.op(u), "thr": self.thresholds(h)}

    def state_part(self, batch: dict) -> dict:
        """Per situation (once per decision): token states and mean."""
        h = self.encode(batch)
        return {"h": h, "mask": batch["attention_mask"], "v": mean(h, batch["attention_mask"])}

    def late_holds(self, lit: dict, st: dict, li: torch.Tensor, si: torch.Tensor):
        """Judge logits [P] and value logits [P, Ts] for the pairs (literal li[k], state si[k])."""
        hl, ml, u = lit["h"][li], lit["mask"][li], lit["u"][li]
        hs, ms, v = st["h"][si], st["mask"][si], st["v"][si]
        seen, _ = self.look(hl, hs, hs, key_padding_mask=ms == 0, need_weights=False)
        c = mean(self.look_norm(hl + seen), ml)
        logit = self.judge(torch.cat([u, v, u * v, (u - v).abs(), c], -1)).squeeze(-1)
        value = self.value(torch.cat([hs, hs * u.unsqueeze(1)], -1)).squeeze(-1)
        return logit, value


def pool(h: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """[B, N, T] token masks -> [B, N, H] means of the marked tokens' states."""
    return masks @ h / masks.sum(-1, keepdim=True).clamp(min=1.0)


def mean(h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The mean of the masked tokens' states: all-MiniLM-L6-v2 was trained to pool this way,
    and its [CLS] state learns slowly (measured: a [CLS] judge sat at loss 0.69 for 200 steps)."""
    w = mask.unsqueeze(-1).to(h.dtype)
    return (h * w).sum(1) / w.sum(1).clamp(min=1.0)


def load_checkpoint(run_dir: str):
    """(model, tokenizer) of a run's latest checkpoint, for evaluation."""
    ck = torch.load(os.path.join(run_dir, "ckpt.pt"), map_location="cpu", weights_only=False)
    base = ck["config"]["base"]
    c = ck["config"]
    model = Reader(base, c.get("judge", "cross"), c.get("reading", "option"), c.get("lora_rank", 0))
    # checkpoints from before the heads of the other reading were left out carry them: ignored
    missing, _ = model.load_state_dict(ck["model"], strict=False)
    if missing:
        raise SystemExit(f"{run_dir}: the checkpoint lacks {', '.join(missing[:4])}")
    model.merged().eval()
    return model, BertTokenizerFast.from_pretrained(base)
