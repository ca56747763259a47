"""The code stays in pieces a newcomer can read: modules, classes and functions of
bounded size (DESIGN.md, Layout). An exception is named here with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("collective", "dream", "sync")
MODULE_LINES, CLASS_LINES, FUNCTION_LINES = 400, 300, 60

# path (relative to the repository) -> why it may be longer
EXCEPTIONS: dict[str, str] = {
    "collective/judge/lexicon.py": "word tables, one entry a line: data, not logic",
}


def sources():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def oversized(paths=None, root: Path = ROOT) -> list[str]:
    found = []
    for path in paths if paths is not None else sources():
        name = path.relative_to(root).as_posix()
        if name in EXCEPTIONS:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + 1
        if lines > MODULE_LINES:
            found.append(f"{name}: module of {lines} lines")
        for node in ast.walk(ast.parse(text)):
            span = (node.end_lineno or node.lineno) - node.lineno + 1 if hasattr(node, "lineno") else 0
            if isinstance(node, ast.ClassDef) and span > CLASS_LINES:
                found.append(f"{name}:{node.lineno}: class {node.name} of {span} lines")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and span > FUNCTION_LINES:
                found.append(f"{name}:{node.lineno}: function {node.name} of {span} lines")
    return found


def test_no_module_class_or_function_outgrows_its_bound():
    assert oversized() == []


def test_the_bound_is_checked(tmp_path):
    big = tmp_path / "probe.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES + 1))
    big.write_text(f"def long_function():\n{body}\n", encoding="utf-8")
    assert [line.split(": ", 1)[1] for line in oversized([big], tmp_path)] == [
        f"function long_function of {FUNCTION_LINES + 2} lines"]
