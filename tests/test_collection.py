"""How the suite collects and runs: every run derandomized unless a hunt for
bugs asks for fresh randomness, and a skipped test module counted once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

PROPERTY = """\
from hypothesis import given, settings, strategies as st

seen = []


@settings(max_examples=7)
@given(st.integers())
def test_numbers(number):
    seen.append(number)


def test_after():
    print("EXAMPLES", len(seen), sorted(seen))
"""

SKIPPING = """\
import pytest

pytest.importorskip("no_such_module_anywhere")


def test_never():
    raise AssertionError
"""


def _pytest(folder: Path, *args: str) -> str:
    shutil.copy(ROOT / "conftest.py", folder / "conftest.py")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
         "--doctest-modules", *args],
        cwd=folder, capture_output=True, text=True, timeout=120, check=False,
        env={key: value for key, value in os.environ.items() if key != "CI"},
    )  # fmt: skip
    assert done.returncode in (0, 5), done.stdout + done.stderr
    return done.stdout


def test_this_run_is_derandomized() -> None:
    if settings.get_current_profile_name() != "hunt":
        assert settings.default.derandomize and settings.default.deadline is None


def test_every_run_tries_the_same_examples_and_a_hunt_ten_times_as_many_fresh(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_property.py").write_text(PROPERTY)
    # A module that skips, imported for its tests and (--doctest-modules) its doctests:
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    outputs = [_pytest(tmp_path) for _ in range(2)]
    assert "1 skipped" in outputs[0]  # counted once
    runs = [output.split("EXAMPLES ")[1].splitlines()[0] for output in outputs]
    assert runs[0] == runs[1] and runs[0].startswith("7 ")
    hunts = [
        _pytest(tmp_path, "--hypothesis-profile", "hunt").split("EXAMPLES ")[1].splitlines()[0]
        for _ in range(2)
    ]
    assert all(hunt.startswith("70 ") for hunt in hunts)
    assert hunts[0] != hunts[1]
