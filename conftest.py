"""Test collection: the doctests of modules whose optional extra is missing are
left out, and the tests that start JAX run last.

``pytest`` collects the doctests of every module under ``src/troedler``; the
adapters import their extra's packages, so without that extra (for instance
after the README's quick start, which installs only ``.[test]``) their
doctests cannot even be imported. Their own test modules skip with a reason.
"""

from __future__ import annotations

import importlib.util

import pytest

_NEEDS = {
    "numpy": ["src/troedler/adapters/tensors.py"],
    "pettingzoo": ["src/troedler/adapters/pettingzoo.py"],
    "gymnasium": ["src/troedler/adapters/gymnasium.py"],
    "pyspiel": ["src/troedler/adapters/openspiel"],
    "jax": ["src/troedler/jax"],
    "pgx": ["src/troedler/jax"],
    "starlette": ["src/troedler/web/server.py"],
}

collect_ignore = [
    path
    for package, paths in _NEEDS.items()
    if importlib.util.find_spec(package) is None
    for path in paths
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that import JAX after all others.

    JAX starts threads when it is imported, and a process that forks after
    that may deadlock; the simulation, Dask and program-bot tests fork, so
    they run while the test process has no JAX threads yet.
    """
    items.sort(key=lambda item: "jax" in item.nodeid.split("::")[0])
