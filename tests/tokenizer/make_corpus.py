#!/usr/bin/env python3
"""Writes tests/tokenizer/corpus.json: the strings the tokenizer parity test compares against
the reference JavaScript tokenizer. Hand-picked cases for each hard area, then seeded random
mixes of fragments (so pieces meet at unusual boundaries). Deterministic: rerun to regenerate.

Usage: tests/tokenizer/make_corpus.py [OUT]   (default: corpus.json next to this script)
"""
import json
import random
import sys
from pathlib import Path

E_ACUTE_NFD = "e\u0301"  # e + combining acute: NFC composes it to U+00E9
HAND = [
    # empty and trivial
    "", " ", "a", "A", "\n", "\t", "  ", "\r\n",
    # English
    "Hello world", "Hello, world!", "The quick brown fox jumps over the lazy dog.",
    "Machine learning is a field of study in artificial intelligence.",
    "She sells sea shells by the sea shore.", "A rule is one sentence; a situation is another.",
    "To be, or not to be: that is the question.", "I can't believe it's not butter!",
    "Don't stop. Won't stop. Shouldn't stop.", "   leading spaces", "trailing spaces   ",
    "multiple     spaces     inside", "UPPERCASE WORDS SHOUT", "camelCaseIdentifierName",
    "snake_case_identifier_name", "kebab-case-identifier", "e-mail: someone@example.com",
    "https://example.com/path?query=1&other=two#frag", "Mr. Smith went to Washington D.C.",
    # contractions, including uppercase and unusual ones
    "it's", "IT'S", "It'S", "we'll", "WE'LL", "We'Ll", "they've", "THEY'VE", "I'm", "I'M",
    "you're", "YOU'RE", "he'd", "HE'D", "'s", "'S", "'ll", "'LL", "''s", "rock 'n' roll",
    "O'Neil's dog", "the '90s", "y'all'd've", "'tis", "ma'am", "'", "''", "' s",
    # numbers
    "0", "7", "42", "123", "1234", "12345", "1234567890", "3.14159", "-273.15", "1e-10",
    "1,000,000", "$1,234.56", "100%", "2024-01-31", "12:34:56", "+1 (555) 123-4567",
    "0x7FFF", "0b1010", "v1.2.3", "1st 2nd 3rd 4th", "١٢٣٤٥", "一二三", "Ⅻ", "½ ¾ ⅓", "²³",
    # whitespace runs, tabs, newlines
    "a  b", "a   b", "a\tb", "a\t\tb", "a\nb", "a\n\nb", "a\n\n\nb", "a \n b", "a\r\nb",
    "line1\nline2\n", "\n\n\n", "\t\t\t", "   \n   ", " \t \n \r ", "x" + " " * 20 + "y",
    "indent\n    code\n        more", "trailing newline\n", "\n leading newline",
    "tab\tseparated\tvalues\t1\t2", "a\u00a0b", "a\u2003b", "a\u3000b", "a\u200bb",
    "a\ufeffb", "a\u0085b", "a\u2028b", "a\u2029b", "a\u000bb", "a\u000cb", " \u00a0 ",
    # punctuation
    "...", "!!!", "?!?!", "---", "***", "(parenthesized)", "[bracketed]", "{braced}",
    "\"quoted\"", "'single'", "semi;colon", "a.b.c", "a,b,c", "a/b/c", "a\\b\\c", "@#$%^&*",
    "«guillemets»", "“curly quotes”", "‘single curly’", "em—dash", "en–dash", "ellipsis…",
    "¿Qué?", "¡Hola!", "· • ◦", "§ ¶ † ‡",
    # code
    "def f(x):\n    return x * 2\n", "int main() { return 0; }",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}", "const x = () => { console.log('hi'); };",
    "if x == 1 and y != 2:\n    pass", "#include <vector>\nstd::vector<int> v{1, 2, 3};",
    "SELECT * FROM users WHERE id = 42;", "<div class=\"a\">text</div>", "$ ls -la | grep foo",
    "x+=1;y-=2;z*=3", "a->b", "a::b", "a=>b", "!==", "<=>", "/* comment */", "// comment",
    "    # indented comment", "print(f\"{name!r:>10}\")", "[1, 2, 3]", "{\"key\": [true, null]}",
    # CJK
    "你好，世界！", "我爱自然语言处理。", "日本語のテキストです。", "カタカナとひらがな",
    "한국어 텍스트입니다.", "中文English混合text", "東京タワー", "漢字", "ｆｕｌｌｗｉｄｔｈ ＡＢＣ",
    "「引用」『二重』", "第1章　始まり",
    # emoji: single, ZWJ sequences, skin tones, flags, keycaps, variation selectors
    "😀", "👍", "👍🏽", "👋🏿 hi", "👨‍👩‍👧‍👦", "👩🏽‍💻", "🏳️‍🌈", "❤️", "❤", "🇫🇷🇯🇵",
    "1️⃣", "🤷‍♀️", "🧑🏻‍🤝‍🧑🏿", "emoji😀inside", "😀😀😀", "🐍 python", "✨ sparkles ✨",
    # accented Latin: composed and decomposed
    "café", "cafe\u0301", "naïve", "nai\u0308ve", "résumé", "re\u0301sume\u0301", "Ångström",
    "A\u030angstro\u0308m", "São Paulo", "Sa\u0303o Paulo", "Zürich", "Zu\u0308rich", "Œuvre",
    "ﬁ ligature", "Ⅳ", "ḱ", "k\u0301", "e\u0301\u0301", E_ACUTE_NFD + E_ACUTE_NFD,
    "Dvořák", "Łódź", "Ça va", "Straße", "ĳ", "Ǆ", "\u0301 leading combining mark",
    # RTL scripts
    "مرحبا بالعالم", "السلام عليكم", "العربية 123", "שלום עולם", "עברית עם English",
    "مَرْحَبًا", "فارسی", "اردو", "\u200fRTL mark\u200e",
    # other scripts
    "Привет, мир!", "Ελληνικά", "हिन्दी भाषा", "ภาษาไทย", "ქართული", "Հայերեն", "አማርኛ",
    "தமிழ்", "বাংলা", "ᚠᛇᚻ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𝟘𝟙𝟚", "Ω ≈ ∑ ∫ √", "→ ← ↑ ↓", "♠♥♦♣",
    # special tokens (added tokens of Qwen's vocabulary)
    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_start|>user\nHello<|im_end|>",
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>assistant\n",
    "text<|endoftext|>more", "<|endoftext|><|endoftext|>", "<|im_start|><|im_end|>",
    "<think>\nreasoning\n</think>\n\nanswer", "<tool_call>{\"a\": 1}</tool_call>",
    "<|fim_prefix|>def<|fim_suffix|>x<|fim_middle|>", "<|vision_start|><|image_pad|><|vision_end|>",
    "< |im_start|>", "<|im_start", "im_start|>", "<|im_start|", "<<|im_end|>>", "<|notatoken|>",
    " <|im_start|> ", "\n<|im_end|>\n", "<|IM_START|>", "<|box_start|>(1,2)<|box_end|>",
    "<|file_sep|><|repo_name|>meadow", "<tool_response>ok</tool_response>",
]

FRAGMENTS = [
    "the", " rule", " says", "If", " the", " cart", " moves", " left", ",", " push", " right",
    ".", "!", "?", " ", "  ", "\t", "\n", "\n\n", "\r\n", "123", "4567", "3.5", "-1", "42%",
    "it's", "IT'S", "we'LL", "don't", "'", "\"", "(", ")", "[x]", "{}", "=>", "::", "->",
    "café", "cafe\u0301", "naïve", "Zu\u0308rich", "你好", "世界", "日本", "한국", "مرحبا",
    "שלום", "Привет", "Ελλάδα", "हिन्दी", "😀", "👍🏽", "👨‍👩‍👧", "🏳️‍🌈", "❤️", "🇯🇵",
    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<|", "|>",
    "user", "assistant", "system", "def f(x):", "    return", "x = 1", "a_b", "CamelCase",
    "https://x.y/z", "@user", "#tag", "$5", "…", "—", "\u00a0", "\u3000", "\u200b", "\ufeff",
    "ﬁ", "²", "½", "Ⅻ", "ǅ", "\u0301",
]


def mixes(n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = rng.randint(2, 9)
        out.append("".join(rng.choice(FRAGMENTS) for _ in range(k)))
    return out


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("corpus.json")
    corpus = HAND + mixes(400, seed=2024)
    # Longer texts: paragraphs of mixed fragments, and long single runs (BPE on long pieces).
    rng = random.Random(7)
    corpus += ["".join(rng.choice(FRAGMENTS) for _ in range(60)) for _ in range(10)]
    corpus += ["a" * 300, "ab" * 200, " " * 100, "\n" * 50, "=" * 120, "9" * 80, "😀" * 40,
               "é" * 100, "e\u0301" * 60, "x" + "\t" * 30 + "y", "supercalifragilistic" * 10]
    seen, unique = set(), []
    for s in corpus:
        if s not in seen:
            seen.add(s)
            unique.append(s)
    out.write_text(json.dumps(unique, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(unique)} strings -> {out}")


if __name__ == "__main__":
    main()
