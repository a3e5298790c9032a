#!/usr/bin/env python3
"""Writes tests/tokenizer/bert_corpus.json: strings (and [first, second] pairs) the WordPiece
parity test compares against Hugging Face `tokenizers` on all-MiniLM-L6-v2's tokenizer.json,
beside the byte-level corpus (corpus.json). Hand-picked cases for each step of BERT's pipeline
(cleaning, CJK, accents, lower case, punctuation, WordPiece's longest match and its 100-char
limit, special tokens written in the text), rules and situations as people write them, then
seeded random mixes of fragments. Deterministic: rerun to regenerate.

Usage: tests/tokenizer/make_bert_corpus.py [OUT]   (default: bert_corpus.json beside this)
"""
import json
import random
import sys
from pathlib import Path

HAND = [
    # empty, whitespace runs, control characters
    "", " ", "   ", "\t", "\n\n", " \t \r\n ", "a  b", "a\t\tb", "a\n\nb", "x" + " " * 30 + "y",
    "a\u00a0b", "a\u2003b", "a\u3000b", "a\u2028b", "a\u0085b", "a\u000bb", "a\u000cb",
    "a\u0000b", "a\ufffdb", "a\u200bb", "a\u200db", "a\ufeffb", "soft\u00adhyphen",
    "bell\u0007ring", "del\u007fete", "a\u001fb", "\u202eevil\u202c", "a\ue000b (private use)",
    # case and accents
    "Hello World", "HELLO WORLD", "hElLo WoRlD", "naïve café", "NAÏVE CAFÉ", "Zürich Straße",
    "STRASSE straße ẞ", "Ångström", "São Paulo", "Kraków", "Dvořák", "Æsir Œuvre Ølstue",
    "e\u0301 (combining acute)", "E\u0301\u0327", "İstanbul ıi", "ΣΑΣ σας Σ", "ΟΔΥΣΣΕΥΣ",
    "Ǆ ǅ ǆ", "ﬁnancial ﬂow ﬀ", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３", "ℌ ℍ ℕ ℂ", "Ⅻ ⅻ", "Kelvin \u212a",
    "Ohm \u2126", "Å (angstrom sign)", "ǅungla", "ŉ", "ﬆ", "ᾼ ᾳ", "Ԁ ԁ Ա ա", "Ꭰ ꭰ",
    # numbers
    "3.5", "-12", "+7", "3.5 degrees", "-12 below zero", "1,000,000", "$1,234.56", "100%",
    "2026-12-06", "12:34:56", "1e-9", "0x7FFF", "v1.2.3", "1st 2nd 3rd 4th", "½ ¾ ⅓", "²³ ₂₃",
    "١٢٣٤٥", "一二三", "①②③", "3½ cups", "-0.0", "98.6°F", "37°C", "5'11\"", "No. 42",
    # punctuation and symbols
    "Hello, world!", "...", "?!?!", "---", "(a)", "[b]", "{c}", "a.b.c", "a/b\\c", "@#$%^&*",
    "«guillemets»", "“curly” ‘quotes’", "em—dash en–dash", "ellipsis…", "¿Qué? ¡Hola!",
    "· • ◦ ‣", "§ ¶ † ‡", "€ £ ¥ ₹ ₿", "© ® ™", "→ ← ↑ ↓", "≤ ≥ ≠ ±", "∑ ∫ √ ∞",
    "don't", "I'm", "it's", "rock 'n' roll", "e-mail: someone@example.com",
    "https://example.com/path?q=1&r=two#frag", "C++ and C#", "snake_case", "kebab-case",
    "~tilde `backtick` |pipe|", "a+b=c", "<tag attr=\"v\">", "#hashtag @mention",
    # CJK and other scripts
    "中文字符", "你好，世界！", "東京タワー", "ひらがな カタカナ", "한국어 텍스트", "ｶﾀｶﾅ",
    "漢字とかな混じり文", "中a文b", "𠀀𠀁 (extension B)", "\U0002b820\U0002b91f\U0002b920",
    "\U0002a700 \U0002ceaf", "\uf900\ufa0e\ufa10 (compatibility ideographs)", "⺀ ⼀ (radicals)",
    "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก", "Привет, мир!",
    "Γειά σου Κόσμε", "Բարեւ", "გამარჯობა", "ሰላም", "ᚠᛇᚻ", "ꦗꦮ", "𐍈 gothic",
    # emoji
    "😀", "😀😃😄", "I ❤️ NY", "👍🏽 thumbs", "👩‍👩‍👧 family", "🇫🇷 flag", "🥰 🥳 🫠 🫶",
    "⌚ ⌛ ☕", "1️⃣ keycap", "🏳️‍🌈",
    # WordPiece: long words, the 100-character limit, unknown pieces
    "unbelievably", "antidisestablishmentarianism", "supercalifragilisticexpialidocious",
    "pneumonoultramicroscopicsilicovolcanoconiosis", "a" * 99, "a" * 100, "a" * 101,
    "ab" * 50, "ab" * 51, "é" * 100, "é" * 101, "x" * 250 + " short", "qwxzkjhgf",
    "zzzzzzzzqqqqq", "thecatsatonthemat", "xn--bcher-kva", "ß" * 3, "ǆ" * 5,
    "a▁b ▁▁x ▁", "##ing ## #", "unaffable", "playing played player",
    # special tokens written in the text (matched verbatim, as added tokens)
    "[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "a[MASK]b", "[mask] [Mask]", "[CLS][SEP]",
    "[ CLS ]", "[[MASK]]", "x [SEP] y", "[unused0]", "[unused993]", "[MASK]" * 3,
    # rules and situations as people write them
    "If the kettle whistles, choose C.", "Choose B unless the light is red; otherwise A.",
    "When it rains, take the umbrella (option D).", "Pick A if the temperature is below -5°C.",
    "the pole is falling left", "The cart is 0.3 m right of centre, moving at -1.25 m/s.",
    "A deer wanders onto the road.", "Otherwise, keep going (A).",
    "If the score is 3.5 or more and the queue is empty, choose E; else F.",
    "Rule: whenever the dog barks twice, open the door. Situation: the dog barked twice.",
    "The lamp lies east, 4 steps away", "the square is red", "NO ENTRY — turn back",
    "It’s 12 o’clock: lunch!", "Press ‘Q’ to quit.",
]

PAIRS = [
    ["If the kettle whistles, choose C.", "The kettle is whistling loudly."],
    ["an animal is in the road", "a deer wanders onto the road"],
    ["Choose A unless it rains.", ""],
    ["", "only the second segment"],
    ["", ""],
    ["the temperature is below -5°C", "It is -12 degrees outside."],
    ["naïve CAFÉ", "中文 😀 [MASK]"],
    ["the light is red", "THE LIGHT IS RED!!!"],
    ["x" * 120, "y" * 5],
    ["the pole is falling left", "the pole is falling right"],
    ["If the queue holds more than 3.5 people, open lane B.", "Five people are waiting."],
    ["whenever the alarm rings", "the alarm rang at 6:30"],
]

FRAGMENTS = [
    "the", "Rule", " ", "  ", "\t", "\n", ",", ".", "!", "?", "'", "\"", "(", ")", "-", "3.5",
    "-12", "42", "naïve", "CAFÉ", "Straße", "ΣΑΣ", "İ", "中文", "東京", "한국", "😀", "👍🏽",
    "[MASK]", "[CLS]", "##", "▁", "\u0301", "\u00ad", "\u200b", "\ufeff", "\u3000", "ﬁ", "①",
    "unbelievable", "choose", "unless", "otherwise", "A", "B", "C", "e-mail", "@", "#", "_",
    "…", "—", "“", "”", "«", "»", "¿", "°", "½", "x" * 40, "Ω", "ß", "ǅ", "ᾼ",
]


def mixes(n, seed):
    rng = random.Random(seed)
    return ["".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(2, 9))) for _ in range(n)]


def main(argv):
    out = Path(argv[0]) if argv else Path(__file__).with_name("bert_corpus.json")
    rng = random.Random(7)
    mixed = mixes(200, 1)
    pairs = PAIRS + [[a, b] for a, b in zip(mixes(40, 2), mixes(40, 3))]
    entries = HAND + mixed + pairs
    rng.shuffle(entries)  # pairs and strings interleaved: the parity test reads them in order
    out.write_text(json.dumps(entries, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{out}: {len(entries)} entries ({len(pairs)} pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
