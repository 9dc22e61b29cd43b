"""Test collection: the doctests of modules whose optional extra is missing are
left out, and so are troedler.jax's, which tests/test_jax.py runs in a
process of its own (JAX starts threads, and the other tests fork).

``pytest`` collects the doctests of every module under ``src/troedler``; the
adapters import their extra's packages, so without that extra (for instance
after the README's quick start, which installs only ``.[test]``) their
doctests cannot even be imported. Their own test modules skip with a reason.
"""

from __future__ import annotations

import importlib.util
import os

_NEEDS = {
    "numpy": ["src/troedler/adapters/tensors.py"],
    "pettingzoo": ["src/troedler/adapters/pettingzoo.py"],
    "gymnasium": ["src/troedler/adapters/gymnasium.py"],
    "pyspiel": ["src/troedler/adapters/openspiel"],
    "starlette": ["src/troedler/web/server.py"],
}

collect_ignore = [
    path
    for package, paths in _NEEDS.items()
    if importlib.util.find_spec(package) is None
    for path in paths
]


if os.environ.get("TROEDLER_JAX_TESTS") != "1":
    # --doctest-modules would import the checks module too, and with it JAX.
    collect_ignore += ["src/troedler/jax", "tests/jax_checks.py"]
