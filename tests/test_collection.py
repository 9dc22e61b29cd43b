"""How the suite collects and runs: every run derandomized unless a hunt for
bugs asks for fresh randomness, and a skipped test module counted once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

from tests.extras import extras_of, install_hint, is_core, source_packages

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
    # conftest.py reads which extra a module needs with tests/extras.py.
    (folder / "tests").mkdir(exist_ok=True)
    for name in ("__init__.py", "extras.py"):
        shutil.copy(ROOT / "tests" / name, folder / "tests" / name)
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


def test_every_package_the_source_imports_is_troedlers_own_dependency_or_an_extras() -> None:
    missing = {
        package for package in source_packages() if not is_core(package) and not extras_of(package)
    }
    assert not missing, f"no extra installs {sorted(missing)}: add it to pyproject.toml"
    assert install_hint(["numpy"]) == "pip install -e '.[rl]'"
    assert install_hint(["pyspiel", "numpy"]) == "pip install -e '.[openspiel]'"
    assert (
        install_hint(["jax", "optax"]) == "pip install -e '.[jax-train]'"
    )  # through troedler[jax]


SCRATCH = '''\
"""A module that needs an extra.

>>> 1 + 1
2
"""

import {package}
'''

LEANS = '''\
"""A module that needs it only through troedler.scratch.

>>> 2 + 2
4
"""

from troedler.scratch import {package}
'''

PYPROJECT = """\
[project]
name = "troedler"
dependencies = ["attrs"]

[project.optional-dependencies]
test = ["pytest"]
scratch = ["{distribution}>=1"]
more = ["troedler[scratch]", "something-else"]
"""


def test_a_new_module_needing_a_missing_extra_skips_its_doctests_naming_the_extra(
    tmp_path: Path,
) -> None:
    package = "no_such_package_for_troedler"
    (tmp_path / "pyproject.toml").write_text(
        PYPROJECT.format(distribution=package.replace("_", "-"))
    )
    source = tmp_path / "src" / "troedler"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text('"""The package."""\n')
    (source / "scratch.py").write_text(SCRATCH.format(package=package))
    (source / "leans.py").write_text(LEANS.format(package=package))
    (source / "plain.py").write_text('"""Needs nothing.\n\n>>> 3 + 3\n6\n"""\n')
    output = _pytest(tmp_path, "-rs", "src")
    hint = f"needs {package}: pip install -e '.[scratch]'"
    assert f"src/troedler/scratch.py: {hint}" in output, output
    assert f"src/troedler/leans.py: {hint}" in output, output
    assert "1 passed, 2 skipped" in output, output  # plain.py's doctest ran
