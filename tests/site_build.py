"""Building the documentation site once for every test that reads it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import skip_reason

ROOT = Path(__file__).resolve().parents[1]


def require_docs_extra(*, module_level: bool = True) -> None:
    """Skip the calling test module (or test) without the docs extra; in CI, fail instead."""
    if importlib.util.find_spec("mkdocs") and importlib.util.find_spec("material"):
        return
    if os.environ.get("CI"):
        raise RuntimeError("CI must install the docs extra (see .ci/run)")
    pytest.skip(skip_reason(["mkdocs", "material"]), allow_module_level=module_level)


_built: list[Path] = []


def built_site(factory: pytest.TempPathFactory) -> Path:
    """The site, built with ``mkdocs build --strict`` once per test session."""
    if _built:
        return _built[0]
    out = factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    _built.append(out)
    return out
