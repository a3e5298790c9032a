"""``python -m meadow_mind ARGS`` runs the meadow-mind command line (same commands, output and
exit codes as the executable): ``python -m meadow_mind cartpole``."""

from __future__ import annotations

import sys

from . import _core


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    sys.stdout.flush()
    sys.stderr.flush()
    return _core.run_cli(["meadow-mind", *args])


if __name__ == "__main__":
    sys.exit(main())
