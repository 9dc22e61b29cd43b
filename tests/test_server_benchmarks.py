"""The server's benchmarks run after the install their docstrings give
(``pip install -e '.[server-bench]'``): every package they import is
the standard library's, troedler's, theirs, or one of that extra's."""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions, requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("server_*.py"))


def extra_closure(extra: str) -> set[str]:
    """The distributions troedler's ``extra`` brings, its own extras' included."""
    found: set[str] = set()
    todo = [extra]
    while todo:
        wanted = todo.pop()
        for requirement in requires("troedler") or []:
            name, _, marker = requirement.partition(";")
            if f'extra == "{wanted}"' not in marker:
                continue
            head = re.match(r"[A-Za-z0-9_.-]+(\[[^\]]*\])?", name.strip())
            assert head is not None
            dist = head.group(0).split("[")[0].lower().replace("_", "-")
            if dist == "troedler" and head.group(1):
                todo += [e.strip() for e in head.group(1)[1:-1].split(",")]
            else:
                found.add(dist)
    return found


def imported(script: Path) -> set[str]:
    tree = ast.parse(script.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("script", SCRIPTS, ids=[script.name for script in SCRIPTS])
def test_a_server_benchmark_needs_only_the_server_bench_extra(script: Path) -> None:
    extra = extra_closure("server-bench")
    assert {"httpx", "psutil", "websockets", "sqlalchemy"} <= extra
    ours = {path.stem for path in SCRIPTS}
    providers = packages_distributions()
    for name in imported(script) - set(sys.stdlib_module_names) - ours - {"troedler"}:
        dists = {dist.lower().replace("_", "-") for dist in providers.get(name, [])}
        assert dists & extra, f"{script.name} imports {name}, not in the server-bench extra"
    assert "tests" not in imported(script)  # the benchmarks stand on their own
