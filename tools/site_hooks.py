"""MkDocs hooks: the site's pictures, drawn while it is built.

Nothing on the site is drawn by hand or kept as a generated file in the
repository. The plots come from the benchmark results in
``benchmarks/results/`` (through ``benchmarks/plots.py``), so they always
show the figures the pages quote.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]


def _plots_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "troedler_plots", ROOT / "benchmarks" / "plots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def pictures() -> dict[str, str]:
    """Every generated picture of the site, by its path on the site."""
    drawn = {f"images/{name}": svg for name, svg in _plots_module().plots().items()}
    return drawn


def on_files(files: Files, config: Any) -> Files:
    for path, content in pictures().items():
        files.append(File.generated(config, path, content=content))
    return files
