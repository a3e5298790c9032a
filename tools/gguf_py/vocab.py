"""Tokenizer metadata for fixtures: a small byte-level BPE trained on a built-in text, or the
vocabulary, merges and added tokens of a Hugging Face tokenizer.json."""
import json
import re
from collections import Counter

# llama.cpp token types
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
LLAMA3 = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + "
    "message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
)

# Special tokens per family: (text, role) where role names the tokenizer.ggml.*_token_id key.
QWEN_SPECIALS = [("<|endoftext|>", "eos"), ("<|im_start|>", None), ("<|im_end|>", None),
                 ("<|mask|>", "mask")]
LLAMA_SPECIALS = [("<|begin_of_text|>", "bos"), ("<|end_of_text|>", "eos"),
                  ("<|start_header_id|>", None), ("<|end_header_id|>", None),
                  ("<|eot_id|>", None), ("<|mdm_mask|>", "mask")]

CORPUS = """
If the pole leans to the left, push the cart to the left. If the pole leans to the right,
push the cart to the right. The lander is falling fast; fire the main engine. Keep the
ship level and land softly between the two flags. The car is in the valley: drive left to
gain speed, then drive right up the hill. Answer with one letter. Option A means move
left, option B means move right, option C means do nothing. The situation is: the pole
angle is small and the cart is near the centre of the track. What should the agent do?
The quick brown fox jumps over the lazy dog. Numbers like 12, 345 and 6789 appear too.
def add(a, b):\n    return a + b\n
"""


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character table."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) \
        + list(range(ord("\u00ae"), ord("\u00ff") + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def synthetic(family, n_tokens):
    """A trained byte-level BPE with exactly n_tokens entries (bytes, merges, specials,
    then unused padding if the merges run out)."""
    specials = QWEN_SPECIALS if family == "qwen" else LLAMA_SPECIALS
    b2u = bytes_to_unicode()
    tokens = [b2u[b] for b in range(256)]
    n_merges = n_tokens - 256 - len(specials)
    if n_merges < 0:
        raise ValueError(f"--vocab {n_tokens} is too small: need at least {256 + len(specials)}")
    words = Counter()
    for w in re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+", CORPUS):
        words[tuple(b2u[b] for b in w.encode("utf-8"))] += 1
    merges = []
    while len(merges) < n_merges:
        pairs = Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            break
        best = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        merges.append(f"{best[0]} {best[1]}")
        tokens.append(best[0] + best[1])
        merged = Counter()
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] += c
        words = merged
    types = [NORMAL] * len(tokens)
    roles = {}
    for text, role in specials:
        if role:
            roles[role] = len(tokens)
        tokens.append(text)
        types.append(CONTROL)
    while len(tokens) < n_tokens:
        tokens.append(f"[PAD{len(tokens)}]")
        types.append(UNUSED)
    return tokens, types, merges, roles


def from_tokenizer_json(path, family, n_tokens=None):
    """Vocabulary, merges and added tokens of a Hugging Face tokenizer.json. The mask token of
    the family is appended if the file has none. Padded with unused entries to n_tokens."""
    with open(path, encoding="utf-8") as f:
        tj = json.load(f)
    model = tj["model"]
    if model.get("type") != "BPE":
        raise ValueError(f"{path}: model type {model.get('type')} is not BPE")
    by_id = {}
    for text, i in model["vocab"].items():
        by_id[i] = (text, NORMAL)
    for t in tj.get("added_tokens", []):
        by_id[t["id"]] = (t["content"], CONTROL if t.get("special") else USER_DEFINED)
    specials = QWEN_SPECIALS if family == "qwen" else LLAMA_SPECIALS
    known = {text: i for i, (text, _) in by_id.items()}
    mask_text = [t for t, r in specials if r == "mask"][0]
    if mask_text not in known:
        mid = max(by_id) + 1
        by_id[mid] = (mask_text, CONTROL)
        known[mask_text] = mid
    size = max(by_id) + 1
    if n_tokens is not None and n_tokens < size:
        raise ValueError(f"--vocab {n_tokens} is smaller than the tokenizer ({size} tokens)")
    size = n_tokens or size
    tokens, types = [], []
    for i in range(size):
        text, ty = by_id.get(i, (f"[PAD{i}]", UNUSED))
        tokens.append(text)
        types.append(ty)
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    roles = {r: known[t] for t, r in specials if r and t in known}
    return tokens, types, merges, roles
