"""Train the byte-level BPE on a sample of the corpus (every curriculum stage).

python3 -m train.nano.train_tokenizer --vocab 4096 --examples 1500 --out train/nano/tokenizer/vocab.json
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .corpus.curriculum import STAGES
from .corpus.generate import example
from .tokenizer.bpe import SPECIALS, Tokenizer, train_merges


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", type=int, default=4096, help="total tokens incl. 256 bytes and specials")
    ap.add_argument("--examples", type=int, default=1500, help="examples per curriculum stage")
    ap.add_argument("--seed", type=int, default=12345, help="corpus seed (distinct from training seeds)")
    ap.add_argument(
        "--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "tokenizer", "vocab.json")
    )
    a = ap.parse_args(argv)
    t0 = time.time()
    texts = [example(a.seed, st, i).text() for st in STAGES for i in range(a.examples)]
    n_merges = a.vocab - 256 - len(SPECIALS)
    merges = train_merges(texts, n_merges)
    tok = Tokenizer(merges)
    tok.save(a.out)
    n_chars = sum(len(t) for t in texts)
    n_ids = sum(len(tok.encode(t)) for t in texts[:: max(1, len(texts) // 500)])
    n_chars_s = sum(len(t) for t in texts[:: max(1, len(texts) // 500)])
    print(
        f"{len(tok)} tokens ({len(merges)} merges) from {n_chars / 1e6:.1f} M chars in {time.time() - t0:.0f} s;"
        f" {n_chars_s / n_ids:.2f} chars/token; wrote {a.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
