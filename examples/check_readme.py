"""Checks that every README.md code block announced by `<!-- file: PATH -->` is PATH, byte for
byte, so the example a user reads is the example the tests build and run.

    python3 examples/check_readme.py [README.md]      # exit 1 with a diff when they differ
"""
from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

MARK = re.compile(r"^<!-- file: (\S+) -->\n```[a-z+]*\n(.*?)^```$", re.M | re.S)


def main(argv: list[str]) -> int:
    readme = Path(argv[1] if len(argv) > 1 else "README.md")
    root = readme.parent
    blocks = MARK.findall(readme.read_text())
    if not blocks:
        print(f"{readme}: no `<!-- file: PATH -->` code block", file=sys.stderr)
        return 1
    bad = 0
    for path, block in blocks:
        want = (root / path).read_text()
        same = block == want
        print(f"{readme}: the block of {path} {'is the file' if same else 'differs from the file'}")
        if not same:
            bad += 1
            sys.stderr.writelines(difflib.unified_diff(want.splitlines(True), block.splitlines(True),
                                                       path, f"{readme} block"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
