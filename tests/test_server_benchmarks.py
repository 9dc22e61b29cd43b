"""The server's benchmarks run after the install their docstrings give
(``pip install -e '.[server-bench]'``): every package they import is
the standard library's, troedler's, theirs, or one of that extra's."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.extras import distribution, extra_closure, is_core

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("server_*.py"))


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
    for name in imported(script) - set(sys.stdlib_module_names) - ours - {"troedler"}:
        assert distribution(name) in extra or is_core(name), (
            f"{script.name} imports {name}, not in the server-bench extra"
        )
    assert "tests" not in imported(script)  # the benchmarks stand on their own
