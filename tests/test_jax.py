"""The JAX engine's tests, in a pytest process of their own.

Once JAX has started its backend the process holds threads of its own, and
a process with threads that forks may deadlock in the child; the simulation,
Dask, program-bot and terminal tests fork. So the JAX engine's tests
(tests/jax_checks.py) and the doctests of troedler.jax run in a separate
pytest process, which this test starts and whose report it shows on failure.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OWN_PROCESS = "TROEDLER_JAX_TESTS"
"""Set in the separate process, where conftest.py collects troedler.jax's doctests."""
MISSING = [name for name in ("jax", "pgx", "numpy") if importlib.util.find_spec(name) is None]


@pytest.mark.skipif(bool(MISSING), reason=f"needs the jax extra ({', '.join(MISSING)} missing)")
def test_the_jax_engine_in_a_process_of_its_own() -> None:
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
        "tests/jax_checks.py", "src/troedler/jax",
    ]  # fmt: skip
    result = subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, OWN_PROCESS: "1"},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    report = result.stdout[-20_000:] + result.stderr[-5_000:]
    print(report)
    assert result.returncode == 0, report
    assert " passed" in result.stdout.splitlines()[-1]
