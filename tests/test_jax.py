"""The JAX engine's tests, in a pytest process of their own.

Once JAX has started its backend the process holds threads of its own, and
a process with threads that forks may deadlock in the child; the simulation,
Dask, program-bot and terminal tests fork. So the JAX engine's tests
(tests/jax_checks.py) and the doctests of troedler.jax run in a separate
pytest process, which this test reads and whose report it shows on failure.

That process is started as soon as the suite is collected (by conftest.py,
through :func:`start`), so that its minutes of compiling run beside the
rest of the suite on another core; this test waits for it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parents[1]
OWN_PROCESS = "TROEDLER_JAX_TESTS"
"""Set in the separate process, where conftest.py collects troedler.jax's doctests."""
MISSING = [name for name in ("jax", "pgx", "numpy") if importlib.util.find_spec(name) is None]
NODE = "tests/test_jax.py::test_the_jax_engine_in_a_process_of_its_own"
"""This test's id: conftest.py starts the process when it is collected."""
SECONDS = 1800


class Started:
    """The JAX tests' pytest process, its output going to a temporary file."""

    def __init__(self) -> None:
        self.output: IO[str] = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by finish()
        command = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "tests/jax_checks.py", "src/troedler/jax",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**os.environ, OWN_PROCESS: "1"},
            stdout=self.output,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def finish(self) -> tuple[int, str]:
        """Wait for the process; its exit status and the end of its report."""
        try:
            code = self.process.wait(SECONDS)
        finally:
            self.stop()
        self.output.seek(0)
        report = self.output.read()[-25_000:]
        self.output.close()
        return code, report

    def stop(self) -> None:
        """Kill the process if it is still running (the suite was cut short)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


_started: list[Started] = []


def start() -> None:
    """Start the JAX tests' process now, unless it runs already or cannot."""
    if not MISSING and not _started and os.environ.get(OWN_PROCESS) != "1":
        _started.append(Started())


def stop() -> None:
    """Kill the process if the suite ends without having waited for it."""
    for started in _started:
        started.stop()


@pytest.mark.skipif(bool(MISSING), reason=f"needs the jax extra ({', '.join(MISSING)} missing)")
def test_the_jax_engine_in_a_process_of_its_own() -> None:
    start()  # if conftest.py did not (the test run some other way)
    code, report = _started[0].finish()
    print(report)
    assert code == 0, report
    assert " passed" in report.strip().splitlines()[-1]
