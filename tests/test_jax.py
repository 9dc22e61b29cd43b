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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

import pytest

from tests.extras import skip_reason

ROOT = Path(__file__).resolve().parents[1]
OWN_PROCESS = "TROEDLER_JAX_TESTS"
"""Set in the separate process, where conftest.py collects troedler.jax's doctests."""
MISSING = [name for name in ("jax", "pgx", "numpy") if importlib.util.find_spec(name) is None]
NODE = "tests/test_jax.py::test_the_jax_engine_in_a_process_of_its_own"
"""This test's id: conftest.py starts the process when it is collected."""
SECONDS = 1800


class Started:
    """The JAX tests' pytest process, its output going to temporary files.

    It runs at a lower priority (``nice``), so that the suite's own tests,
    some of which wait for bots and clocks, keep their share of the CPU."""

    def __init__(self) -> None:
        self.stdout: IO[str] = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by finish()
        self.stderr: IO[str] = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by finish()
        command = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "tests/jax_checks.py", "src/troedler/jax",
        ]  # fmt: skip
        nice = shutil.which("nice")
        self.process = subprocess.Popen(
            [nice, "-n", "10", *command] if nice else command,
            cwd=ROOT,
            env={**os.environ, OWN_PROCESS: "1"},
            stdout=self.stdout,
            stderr=self.stderr,
            text=True,
        )

    def finish(self) -> tuple[int | None, str, str]:
        """Wait for the process (killed past :data:`SECONDS`); its exit status
        (None if it was killed), and the ends of its output and its errors."""
        try:
            code: int | None = self.process.wait(SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        self.stop()
        ends = []
        for output in (self.stdout, self.stderr):
            output.seek(0)
            ends.append(output.read()[-20_000:])
            output.close()
        return code, ends[0], ends[1]

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


@pytest.mark.skipif(bool(MISSING), reason=skip_reason(MISSING))
def test_the_jax_engine_in_a_process_of_its_own() -> None:
    start()  # if conftest.py did not (the test run some other way)
    code, output, errors = _started[0].finish()
    report = output + errors[-5_000:]
    print(report)
    assert code is not None, f"the JAX tests took over {SECONDS} s\n{report}"
    assert code == 0, report
    assert " passed" in output.strip().splitlines()[-1], report
