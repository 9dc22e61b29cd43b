"""Test collection: a module whose optional extra is missing is not
imported for its doctests, which skip naming the extra to install, and
troedler.jax's doctests run in a process of their own, which tests/test_jax.py
starts as soon as the suite is collected so that it runs beside the rest
(JAX starts threads, and the other tests fork).

``pytest`` collects the doctests of every module under ``src/troedler``.
README's quick start installs only ``.[test]``; which extra a module needs
is read from its imports (tests/extras.py), so a module that moves or a new
one needs no list kept here. Test modules that need an extra skip with
``pytest.importorskip``, and their reason is rewritten to name the extra.

Hypothesis runs derandomized (profile ``troedler``): every run of the suite,
in CI or after a fresh clone, tries the same examples, so its result does
not depend on chance. To hunt for bugs before a release, ``pytest
--hypothesis-profile hunt`` tries ten times the examples of every property,
with fresh randomness; pin each failure it finds with ``@example``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.extras import missing_for, rewrite_skip, skip_reason

collect_ignore: list[str] = []
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


class NeedsExtra(pytest.File):
    """A module of the package whose extra is missing: its doctests skip,
    naming the extra, without importing it."""

    def collect(self) -> list[pytest.Item]:
        missing = missing_for(self.path)
        raise pytest.skip.Exception(skip_reason(missing), allow_module_level=True)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> object:
    """A test module is collected once: not again for doctests, which would
    import it a second time and count a module that skips as two skips. A
    source module whose imports are missing is not imported for its doctests."""
    collected = yield
    name = file_path.name
    if name.startswith("test_") and name.endswith(".py") and isinstance(collected, list):
        return [node for node in collected if type(node).__name__ != "DoctestModule"]
    if name.endswith(".py") and collected and missing_for(file_path):
        return [NeedsExtra.from_parent(parent, path=file_path)]
    return collected


def _name_the_extra(report: pytest.CollectReport | pytest.TestReport) -> None:
    """An ``importorskip`` skip names the extra to install, not only the package."""
    if report.skipped and isinstance(report.longrepr, tuple):
        path, line, reason = report.longrepr
        report.longrepr = (path, line, rewrite_skip(reason))


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport:
    """A test module that skips for a missing extra names it."""
    report: pytest.CollectReport = yield
    if isinstance(collector, NeedsExtra) and isinstance(report.longrepr, tuple):
        # Reported at the module that needs the extra, not at this file.
        report.longrepr = (str(collector.path), None, report.longrepr[2])
    _name_the_extra(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: object) -> pytest.TestReport:
    """A test that skips for a missing extra names it."""
    report: pytest.TestReport = yield
    _name_the_extra(report)
    return report


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
