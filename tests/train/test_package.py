"""train/ is a package (issue 46, item 4): no module edits sys.path, and the corpus's modules
import one another without a cycle (every import counted, those inside functions too).

    python3 -m unittest tests/train/test_package.py -v
"""

from __future__ import annotations

import ast
import os
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAIN = os.path.join(ROOT, "train")


def python_files(top: str) -> list[str]:
    return sorted(os.path.join(d, f) for d, _, files in os.walk(top) for f in files if f.endswith(".py"))


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def relative_imports(path: str, modules: set[str]) -> set[str]:
    """The sibling modules that `path` imports (from . import x, from .x import y), anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(read(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
    return found & modules


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph, or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node) :] + [node]
        if node in done:
            return None
        for nxt in sorted(graph[node]):
            found = visit(nxt, path + [node])
            if found:
                return found
        done.add(node)
        return None

    for node in sorted(graph):
        found = visit(node, [])
        if found:
            return found
    return None


class PackageTest(unittest.TestCase):
    def test_no_sys_path_edits(self):
        for path in python_files(TRAIN):
            with self.subTest(path=os.path.relpath(path, ROOT)):
                self.assertNotIn("sys.path", read(path))

    def test_every_folder_is_a_package(self):
        for d, _, files in os.walk(TRAIN):
            if any(f.endswith(".py") for f in files):
                self.assertIn("__init__.py", files, os.path.relpath(d, ROOT))

    def test_corpus_has_no_import_cycle(self):
        corpus = os.path.join(TRAIN, "corpus")
        modules = {f[:-3] for f in os.listdir(corpus) if f.endswith(".py")}
        graph = {m: relative_imports(os.path.join(corpus, m + ".py"), modules) - {m} for m in modules}
        self.assertIsNone(cycle(graph))
        self.assertEqual(
            cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"]
        )  # the check checks


if __name__ == "__main__":
    unittest.main()
