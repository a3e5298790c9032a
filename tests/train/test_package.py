"""train/ is a package (issue 46, item 4): no module edits sys.path, and no import cycle anywhere in
train/ (issue 61): none between modules and none between folders (common, nano, nano/corpus, ...),
every import counted, relative or absolute, those inside functions too.

    python3 -m unittest tests/train/test_package.py -v
"""

from __future__ import annotations

import ast
import os
import unittest

from tests.train.helpers import ROOT

TRAIN = os.path.join(ROOT, "train")


def python_files(top: str) -> list[str]:
    return sorted(os.path.join(d, f) for d, _, files in os.walk(top) for f in files if f.endswith(".py"))


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def module_name(path: str) -> str:
    """train/nano/corpus/generate.py -> train.nano.corpus.generate (a package's __init__: the package)."""
    parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: str, modules: set[str]) -> set[str]:
    """The modules of train/ that `path` imports, anywhere in it (inside functions too), relative or
    absolute: `from P import x` counts as P.x when that is a module, else as P."""
    me = module_name(path)
    package = me if path.endswith("__init__.py") else me.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(read(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for a in node.names:
                found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base)
    return found & modules


def import_graph() -> dict[str, set[str]]:
    """train/'s modules and the train/ modules each imports."""
    files = python_files(TRAIN)
    modules = {module_name(p) for p in files}
    return {module_name(p): imported_modules(p, modules) - {module_name(p)} for p in files}


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same imports between folders (train.nano -> train.common, ...): a folder that imports
    from another may not be imported back by it, so each folder can be read and moved on its own."""

    def folder(m: str) -> str:
        is_package = os.path.exists(os.path.join(ROOT, *m.split("."), "__init__.py"))
        return m if is_package else m.rpartition(".")[0]

    out: dict[str, set[str]] = {}
    for m, deps in graph.items():
        out.setdefault(folder(m), set()).update(folder(d) for d in deps)
    return {f: deps - {f} for f, deps in out.items()}


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

    def test_no_import_cycle(self):
        graph = import_graph()
        self.assertIn("train.common.heldout.filter", graph["train.nano.corpus.generate"])  # the walk sees
        self.assertIsNone(cycle(graph), "modules")
        self.assertIsNone(cycle(folder_graph(graph)), "folders")
        self.assertEqual(
            cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"]
        )  # the check checks


if __name__ == "__main__":
    unittest.main()
