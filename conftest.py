"""Test collection: the doctests of modules whose optional extra is missing are
left out, and so are troedler.jax's, which tests/test_jax.py runs in a
process of its own (JAX starts threads, and the other tests fork), started
here as soon as the suite is collected so that it runs beside the rest.

``pytest`` collects the doctests of every module under ``src/troedler``; the
adapters import their extra's packages, so without that extra (for instance
after the README's quick start, which installs only ``.[test]``) their
doctests cannot even be imported. Their own test modules skip with a reason.

Hypothesis runs derandomized (profile ``troedler``): every run of the suite,
in CI or after a fresh clone, tries the same examples, so its result does
not depend on chance. To hunt for bugs before a release, ``pytest
--hypothesis-profile hunt`` tries ten times the examples of every property,
with fresh randomness; pin each failure it finds with ``@example``.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

_NEEDS = {
    "numpy": ["src/troedler/adapters/tensors.py", "src/troedler/adapters/neural.py"],
    "pettingzoo": ["src/troedler/adapters/pettingzoo.py"],
    "gymnasium": ["src/troedler/adapters/gymnasium.py"],
    "pyspiel": ["src/troedler/adapters/openspiel"],
    "starlette": ["src/troedler/web/server.py"],
    "sqlalchemy": ["src/troedler/server"],
    "websockets": ["tests/server_support.py"],
}

collect_ignore = [
    path
    for package, paths in _NEEDS.items()
    if importlib.util.find_spec(package) is None
    for path in paths
]


if os.environ.get("TROEDLER_JAX_TESTS") != "1":
    # --doctest-modules would import the checks module too, and with it JAX.
    collect_ignore += ["src/troedler/jax", "tests/jax_checks.py", "tests/jax_broken.py"]


HUNT_FACTOR = 10
"""How many times its own number of examples a property tries under ``hunt``."""

# No deadline in either: a shared or slow machine must not fail a test.
settings.register_profile("troedler", derandomize=True, deadline=None, print_blob=True)
settings.register_profile(
    "hunt",
    derandomize=False,
    deadline=None,
    max_examples=100 * HUNT_FACTOR,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# Loaded here, before the test modules make their settings (which inherit
# it); --hypothesis-profile, read later, still chooses another.
settings.load_profile("troedler")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``hunt``, give every property ten times its own ``max_examples``."""
    if settings.get_current_profile_name() != "hunt":
        return
    done: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        # Hypothesis keeps a test's settings on the test function and reads
        # them when the test runs; a test's own max_examples would otherwise win.
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is None or not hasattr(test, "hypothesis") or id(test) in done:
            continue
        done.add(id(test))
        test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
            own, max_examples=own.max_examples * HUNT_FACTOR, derandomize=False
        )


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: object, parent: pytest.Collector) -> object:
    """A test module is collected once: not again for doctests, which would
    import it a second time and count a module that skips as two skips."""
    collected = yield
    name = getattr(file_path, "name", "")
    if name.startswith("test_") and name.endswith(".py") and isinstance(collected, list):
        return [node for node in collected if type(node).__name__ != "DoctestModule"]
    return collected


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the JAX engine's tests in their own process now, if they are to run."""
    module = sys.modules.get("tests.test_jax")
    if session.config.option.collectonly or module is None:
        return
    if any(item.nodeid == module.NODE for item in session.items):
        module.start()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Leave no JAX process behind a suite cut short."""
    module = sys.modules.get("tests.test_jax")
    if module is not None:
        module.stop()
