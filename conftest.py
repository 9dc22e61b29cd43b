"""Test collection: the doctests of modules whose optional extra is missing are left out.

``pytest`` collects the doctests of every module under ``src/troedler``; the
adapters import their extra's packages, so without that extra (for instance
after the README's quick start, which installs only ``.[test]``) their
doctests cannot even be imported. Their own test modules skip with a reason.
"""

from __future__ import annotations

import importlib.util

_NEEDS = {
    "numpy": ["src/troedler/adapters/tensors.py"],
    "pettingzoo": ["src/troedler/adapters/pettingzoo.py"],
    "pyspiel": ["src/troedler/adapters/openspiel"],
}

collect_ignore = [
    path
    for package, paths in _NEEDS.items()
    if importlib.util.find_spec(package) is None
    for path in paths
]
