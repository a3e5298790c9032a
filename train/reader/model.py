"""meadow-reader in PyTorch: one BERT encoder (all-MiniLM-L6-v2) and three small heads.

    tag      per rule token, for one option: O / B / I / AND / OR (train/reader/data.py TAGS)
    default  from [CLS] of a reading example: is this option the rule's default?
    judge    from [CLS] of (condition, situation): does the condition hold?
    op       from the same [CLS]: the literal's numeric comparison, or "none" (data.OPS)
    numbers  per token of (condition, situation): threshold / value tags (data.JUDGE_TAGS)

The runtime (C++) runs the same encoder from GGUF and the heads as extra tensors.
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import BertModel

from train.reader.data import JUDGE_TAGS, OPS, TAGS


class Reader(nn.Module):
    def __init__(self, base_dir: str):
        super().__init__()
        self.bert = BertModel.from_pretrained(base_dir, add_pooling_layer=False)
        # The word embeddings stay as pretrained: half the parameters, none of the reading, and
        # the shipped delta then leaves them out.
        self.bert.embeddings.word_embeddings.weight.requires_grad_(False)
        h = self.bert.config.hidden_size
        self.tag = nn.Linear(h, len(TAGS))
        self.default = nn.Linear(h, 1)
        self.judge = nn.Linear(h, 1)
        self.op = nn.Linear(h, len(OPS))
        self.numbers = nn.Linear(h, len(JUDGE_TAGS))

    def encode(self, batch: dict) -> torch.Tensor:
        return self.bert(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            token_type_ids=batch["token_type_ids"],
        ).last_hidden_state

    def read(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """Tag logits [B, T, tags] and default logits [B]."""
        h = self.encode(batch)
        return self.tag(h), self.default(h[:, 0]).squeeze(-1)

    def holds(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Judge logits [B], op logits [B, ops], number tag logits [B, T, tags]."""
        h = self.encode(batch)
        return self.judge(h[:, 0]).squeeze(-1), self.op(h[:, 0]), self.numbers(h)
