"""Which optional extra a module needs, derived from what it imports.

README's quick start installs only ``.[test]``; the rest of troedler's
dependencies are optional extras (``[project.optional-dependencies]`` of
pyproject.toml). A module of the package that imports an extra's package
at load time, itself or through another module of the package, cannot even
be imported without that extra, so its doctests are not collected: they
skip with a reason naming the extra to install. Test modules that skip
with ``pytest.importorskip`` name the extra the same way.

Nothing here lists modules: what a module needs is read from its imports,
and which extra brings a package from pyproject.toml. The one table is
:data:`DISTRIBUTIONS`, for the packages imported under another name than
the distribution that installs them; ``tests/test_collection.py`` checks
that every package the source imports is found in an extra through it.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
SOURCE = ROOT / "src"
PACKAGE = "troedler"
OWN = frozenset({PACKAGE, "tests", "benchmarks", "tools"})
"""The top-level names of the project's own modules, followed through their imports."""

DISTRIBUTIONS = {
    "pyspiel": "open-spiel",
    "open_spiel": "open-spiel",
    "attr": "attrs",
    "yaml": "pyyaml",
    "cloudpickle": "distributed",  # a dependency of Dask's, imported beside it
    "material": "mkdocs-material",
}
"""Packages imported under another name than their distribution on PyPI."""


def _normal(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _pyproject() -> tuple[frozenset[str], dict[str, list[str]]]:
    """The core dependencies and each extra's distributions, in file order,
    with those of the extras it names (``troedler[rl]``) after its own."""
    if not PYPROJECT.exists():
        return frozenset(), {}
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    listed: dict[str, list[str]] = project.get("optional-dependencies", {})

    def names(extra: str, seen: frozenset[str]) -> list[str]:
        found: list[str] = []
        for text in listed.get(extra, []):
            head = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(?:\[([^\]]*)\])?", text)
            if head is None:
                continue
            if _normal(head.group(1)) != PACKAGE:
                found.append(_normal(head.group(1)))
                continue
            for own in (head.group(2) or "").split(","):
                if own.strip() and own.strip() not in seen:
                    found += names(own.strip(), seen | {own.strip()})
        return found

    core = frozenset(_normal(re.split(r"[\s<>=!~;\[]", text, maxsplit=1)[0])
                     for text in project.get("dependencies", []))  # fmt: skip
    return core, {extra: names(extra, frozenset({extra})) for extra in listed}


def distribution(package: str) -> str:
    """The distribution that installs the importable ``package``."""
    return _normal(DISTRIBUTIONS.get(package, package))


def extras_of(package: str) -> list[str]:
    """Every extra that installs ``package`` (an import name), in pyproject.toml's order."""
    wanted = distribution(package)
    return [extra for extra, names in _pyproject()[1].items() if wanted in names]


def is_core(package: str) -> bool:
    """Whether ``package`` is one of troedler's own dependencies, always installed."""
    return distribution(package) in _pyproject()[0]


def extra_closure(extra: str) -> set[str]:
    """The distributions ``extra`` installs, those of the extras it names included."""
    return set(_pyproject()[1].get(extra, []))


def missing_after(extra: str) -> set[str]:
    """The import names of every package some extra brings and ``extra``
    does not: what a venv with only ``extra`` installed lacks."""
    brought = extra_closure(extra) | _pyproject()[0]
    missing = {name for names in _pyproject()[1].values() for name in names} - brought
    renamed = {package for package, name in DISTRIBUTIONS.items() if _normal(name) in missing}
    return renamed | {name.replace("-", "_") for name in missing}


def install_hint(packages: list[str]) -> str:
    """How to install ``packages``: the first extra that brings them all, else one each."""
    _, extras = _pyproject()
    wanted = {distribution(package) for package in packages}
    for extra, names in extras.items():
        if wanted <= set(names):
            return f"pip install -e '.[{extra}]'"
    found = sorted({extras_of(package)[0] for package in packages if extras_of(package)})
    if not found:
        return "no extra of troedler installs it"
    return f"pip install -e '.[{','.join(found)}]'"


def skip_reason(packages: list[str]) -> str:
    """The reason a test or a module's doctests skip without ``packages``."""
    return f"needs {', '.join(sorted(packages))}: {install_hint(sorted(packages))}"


def _module_name(path: Path) -> str | None:
    """The dotted name of a source file of the package or of the project's
    own modules (``tests.helpers``), or None elsewhere."""
    for base in (SOURCE, ROOT):
        try:
            parts = path.resolve().relative_to(base.resolve()).with_suffix("").parts
        except ValueError:
            continue
        if parts and parts[0] in OWN:
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


def _path_of(module: str) -> Path | None:
    base = (SOURCE if module.split(".", maxsplit=1)[0] == PACKAGE else ROOT).joinpath(
        *module.split(".")
    )
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _load_time_imports(tree: ast.Module, module: str, is_package: bool) -> Iterator[str]:
    """The modules ``tree`` imports when it loads: its top-level statements,
    not the bodies of functions and classes, nor ``if TYPE_CHECKING:``."""

    def walk(statements: list[ast.stmt]) -> Iterator[str]:
        for node in statements:
            if isinstance(node, ast.Import):
                yield from (alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = module.split(".")
                    base = parts[: len(parts) - node.level + (1 if is_package else 0)]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                yield stem
                # ``from troedler.x import y`` may import the submodule y.
                yield from (f"{stem}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If) and not _is_type_checking(node.test):
                yield from walk(node.body)
                yield from walk(node.orelse)
            elif isinstance(node, ast.Try):
                # An import guarded by ``except ImportError`` is optional.
                guarded = any(
                    isinstance(handler.type, ast.Name)
                    and handler.type.id in {"ImportError", "ModuleNotFoundError"}
                    for handler in node.handlers
                )
                if not guarded:
                    yield from walk(node.body)
                yield from walk(node.finalbody)

    yield from walk(tree.body)


@functools.cache
def _direct(module: str) -> tuple[frozenset[str], frozenset[str]]:
    """What ``module`` imports itself at load time: (third-party packages,
    the project's modules, its parent package included)."""
    path = _path_of(module)
    if path is None:
        return frozenset(), frozenset()
    packages: set[str] = set()
    own: set[str] = set()
    parent = module.rpartition(".")[0]
    if parent:
        own.add(parent)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for name in _load_time_imports(tree, module, path.name == "__init__.py"):
        top = name.split(".")[0]
        if top in OWN:
            own.add(name)
        elif top and top not in sys.stdlib_module_names and top != "__future__":
            packages.add(top)
    own.discard(module)
    return frozenset(packages), frozenset(own)


@functools.cache
def _needs_of(module: str) -> frozenset[str]:
    """The third-party packages ``module`` (of the project) imports at load
    time, itself, through its parent packages or through the project's other
    modules (imports go round in cycles: each module is read once)."""
    needs: set[str] = set()
    seen = {module}
    todo = [module]
    while todo:
        packages, own = _direct(todo.pop())
        needs |= packages
        todo.extend(own - seen)
        seen |= own
    return frozenset(needs)


def third_party_imports(path: Path) -> frozenset[str]:
    """Every package outside the standard library and the project that the
    file ``path`` imports when it loads, directly or through the project's
    own modules."""
    module = _module_name(path)
    return frozenset() if module is None else _needs_of(module)


def missing_for(path: Path) -> list[str]:
    """The packages that the source file ``path`` needs and that are not installed."""
    return sorted(
        package
        for package in third_party_imports(path)
        if importlib.util.find_spec(package) is None
    )


def source_packages() -> set[str]:
    """Every package outside the standard library and troedler that some
    module of troedler imports when it runs, at load time or later (not in
    ``if TYPE_CHECKING:``, which only the type checker reads)."""

    def imported(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from (name for child in node.orelse for name in imported(child))
            return
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module
        for child in ast.iter_child_nodes(node):
            yield from imported(child)

    found: set[str] = set()
    for path in (SOURCE / PACKAGE).rglob("*.py"):
        for name in imported(ast.parse(path.read_text(encoding="utf-8"))):
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top not in {PACKAGE, "__future__"}:
                found.add(top)
    return found


IMPORTORSKIP = re.compile(r"could not import '([\w.]+)'")
"""What ``pytest.importorskip`` says of a package it cannot import."""


def rewrite_skip(reason: str) -> str:
    """``reason`` with an ``importorskip`` message replaced by the extra to install."""
    match = IMPORTORSKIP.search(reason)
    if match is None:
        return reason
    return skip_reason([match.group(1).split(".")[0]])
