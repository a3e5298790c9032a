"""Token ids of a decision prompt exactly as the runtime builds them for a ChatML model.

The layout is the prompt contract (train/common/prompt.py, models/prompt-contract.json;
docs/prompt-contract.md; causal models: no mask slot, the letter is the next token);
src/decision/prompt.cpp + src/tokenizer/chat_template.cpp: the chat is rendered as pieces
(template markup special, user text plain), split where the situation starts, and prefix and
suffix are tokenized separately. For SmolLM2 (chatml):
  prefix = <|im_start|> "system\\n{system}" <|im_end|> "\\n" <|im_start|> "user\\nRule: {rule}\\nOptions:\\n{A) text\\n...}"
  suffix = "Situation: {state}" <|im_end|> "\\n" <|im_start|> "assistant\\n"
The answer is the next token: the option letter. The tokenizer is SmolLM2's published pipeline
(Digits(individual) then ByteLevel) over the GGUF's vocabulary and merges, which gives the
runtime's ids (tests/reference checks 680/680 strings).
"""

from __future__ import annotations

import functools

from train.common import prompt as contract

SYSTEM = contract.SYSTEM


def _strings(reader, key):
    f = reader.fields[key]
    return [bytes(f.parts[i]).decode("utf-8") for i in f.data]


@functools.lru_cache(maxsize=None)
def tokenizer(gguf_path: str):
    from gguf import GGUFReader
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    r = GGUFReader(gguf_path)
    tokens = _strings(r, "tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in _strings(r, "tokenizer.ggml.merges")]
    tok = Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    return tok, {t: i for i, t in enumerate(tokens)}


class Prompter:
    def __init__(self, gguf_path: str, system: str = SYSTEM):
        self.tok, self.vocab = tokenizer(gguf_path)
        self.system = system
        self.im_start = self.vocab["<|im_start|>"]
        self.im_end = self.vocab["<|im_end|>"]
        self.nl = self.enc("\n")
        self.assistant = self.enc("assistant\n")

    def enc(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False).ids if text else []

    def letter_ids(self, letter: str) -> list[int]:
        """The token ids the runtime reads for a letter: "A" and, if one token, " A"."""
        ids = [self.vocab[letter]]
        spaced = self.enc(" " + letter)
        if len(spaced) == 1:
            ids.append(spaced[0])
        return ids

    def prefix(self, rule: str, options) -> list[int]:
        head = "user\n" + contract.prefix(rule, contract.option_lines(options))
        return (
            [self.im_start]
            + self.enc("system\n" + self.system)
            + [self.im_end]
            + self.nl
            + [self.im_start]
            + self.enc(head)
        )

    def suffix(self, state: str) -> list[int]:
        return self.enc(contract.suffix(state)) + [self.im_end] + self.nl + [self.im_start] + self.assistant
