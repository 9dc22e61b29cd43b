"""The layers of the package, read from the code's own imports.

Each layer may import only the layers below it: the core (``troedler.core``,
the rules) imports nothing else of troedler; what a seat knows
(``troedler.seat``) and reading and writing (``troedler.io``) stand on the
core alone, the encodings on those two; the flat public API (the package
``troedler`` itself) gathers the three. Nothing outside ``troedler.cli``
imports the command line. docs/architecture.md draws the same graph; the
picture there is checked against the imports here.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "troedler"
CORE = "core"
API = "troedler"
KERNEL = {CORE, "seat", "io"}

ALLOWED = {
    CORE: set(),
    "seat": {CORE},
    "io": {CORE},
    "encoding": {CORE, "seat"},
    API: KERNEL,
    "svg": KERNEL,
    "text": KERNEL,
    "bots": KERNEL | {"encoding"},
    "simulation": KERNEL | {"bots"},
    "learning": KERNEL | {"encoding", "bots", "simulation"},
    "adapters": KERNEL | {"encoding", "bots", "simulation", "text"},
    "client": set(),
    "jax": KERNEL | {"encoding", "adapters", "svg"},
    "server": KERNEL | {"bots", "simulation", "svg", "client"},
    "cli": KERNEL | {API, "bots", "simulation", "svg", "text", "server"},
}
"""Which layers each layer may import."""

LAZY_PICTURES = {"troedler.core.state", "troedler.seat.observation", "troedler.io.records"}
"""Core modules whose ``_repr_svg_`` imports the pictures inside the method,
as python-chess does: the one way up from the core."""


def layer_of_module(name: str) -> str:
    """The layer of a module or package named ``troedler....``."""
    parts = name.split(".")
    if len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return API


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, bool]]:
    """Every ``troedler`` module ``path`` imports, and whether at the top level."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [(name, id(node) in top) for name in names if name.split(".")[0] == "troedler"]
    return found


def layer_edges() -> dict[tuple[str, str], list[str]]:
    """Each import from one layer into another, with the modules that make it."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        here = module_name(path)
        for target, _top_level in imports(path):
            edge = (layer_of_module(here), layer_of_module(target))
            if edge[0] != edge[1]:
                edges.setdefault(edge, []).append(f"{here} imports {target}")
    return edges


def test_every_layer_imports_only_the_layers_below_it() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = module_name(path)
        mine = layer_of_module(here)
        for target, top_level in imports(path):
            theirs = layer_of_module(target)
            if theirs == mine or theirs in ALLOWED[mine]:
                continue
            if here == "troedler.__main__" and target == "troedler.cli":
                continue  # ``python -m troedler`` is the command line
            if here in LAZY_PICTURES and target == "troedler.svg" and not top_level:
                continue
            wrong.append(f"{here} ({mine}) imports {target} ({theirs})")
    assert not wrong, wrong


def test_nothing_outside_the_command_line_imports_it() -> None:
    users = [
        module_name(path)
        for path in PACKAGE.rglob("*.py")
        if module_name(path) != "troedler.__main__"
        and layer_of_module(module_name(path)) != "cli"
        and any(
            target == "troedler.cli" or target.startswith("troedler.cli.")
            for target, _ in imports(path)
        )
    ]
    assert users == []


def test_every_subpackage_has_a_layer() -> None:
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert packages == set(ALLOWED) - {API}


def test_the_architecture_picture_is_the_import_graph() -> None:
    # The picture lists each layer with the layers it imports, one line each.
    text = (ROOT / "docs" / "architecture.md").read_text()
    picture = re.search(r"```mermaid\n(.*?)```", text, flags=re.DOTALL)
    assert picture is not None
    drawn = set(re.findall(r"^\s*(\w+) --> (\w+)$", picture.group(1), flags=re.MULTILINE))
    found = set(layer_edges())
    # The lazy picture imports are named in the text, not drawn as layer edges.
    for layer in KERNEL:
        found.discard((layer, "svg"))
    found.discard((API, "cli"))  # python -m troedler
    assert drawn == found


def test_the_rule_table_names_functions_and_tests_that_exist() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = re.findall(r"^\| (\w+) \| `([\w.]+)` \| `([\w/.]+)::(\w+)` \|$", text, re.MULTILINE)
    rules_doc = (ROOT / "docs" / "rules.md").read_text()
    assert {rule for rule, *_ in rows} == set(re.findall(r"\*\*([A-Z]\d[a-c]?)\*\*", rules_doc))
    for rule, function, test_file, test in rows:
        target: object = None
        # The longest importable module, then attributes down to the function.
        parts = function.split(".")
        for i in range(len(parts), 0, -1):
            try:
                target = importlib.import_module(".".join(parts[:i]))
            except ModuleNotFoundError:
                continue
            for attribute in parts[i:]:
                target = getattr(target, attribute)
            break
        assert callable(target), function
        assert test.startswith(f"test_{rule}_")
        assert f"def {test}(" in (ROOT / test_file).read_text(), (rule, test)


def module_caches() -> list[tuple[str, ast.FunctionDef]]:
    """Every function of the package memoised by functools, by its full name."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Attribute) and target.attr in ("cache", "lru_cache"):
                    found.append((f"{module_name(path)}.{node.name}", node))
    return found


def test_every_module_cache_is_bounded_and_named_in_one_place() -> None:
    page = (ROOT / "docs" / "performance.md").read_text()
    caches = module_caches()
    assert len(caches) > 5
    for name, node in caches:
        assert f"`{name}`" in page, name
        (decorator,) = node.decorator_list
        if isinstance(decorator, ast.Call):  # lru_cache(maxsize=...): a number, not None
            (size,) = [k.value for k in decorator.keywords if k.arg == "maxsize"]
            assert isinstance(size, ast.Constant) and isinstance(size.value, int), name
        else:  # functools.cache: only of a function without arguments, one entry
            assert not node.args.args, name
    assert "`troedler.core.goods._INTERNED`" in page


def runtime_imports(path: Path) -> list[tuple[str, bool]]:
    """The modules of the package that ``path`` imports when it runs: each
    ``from X import Y`` read as module ``X.Y`` where that is a module, and
    imports under ``if TYPE_CHECKING:`` left out (they never run)."""
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
    }
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [
                f"{node.module}.{alias.name}"
                if module_path(f"{node.module}.{alias.name}")
                else node.module
                for alias in node.names
            ]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [(name, id(node) in top) for name in names if name.split(".")[0] == "troedler"]
    return found


def module_path(name: str) -> Path | None:
    """The file of module ``troedler....``, or None if it names no module."""
    base = PACKAGE.parent.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def import_cycles(*, lazy: bool, hooks: frozenset[str] = frozenset()) -> list[list[str]]:
    """The strongly connected groups of modules, two or more, that import
    each other when they run; ``lazy`` counts imports inside functions too,
    except those of the modules in ``hooks``."""
    graph = {
        module_name(path): {
            name
            for name, top_level in runtime_imports(path)
            if (top_level or (lazy and module_name(path) not in hooks))
            and module_path(name)
            and name != module_name(path)
        }
        for path in PACKAGE.rglob("*.py")
    }
    # Tarjan's algorithm, iterative so that no recursion limit is met.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_no_modules_import_each_other_at_load_time() -> None:
    assert import_cycles(lazy=False) == []


def test_the_only_import_cycles_are_the_lazy_picture_hooks() -> None:
    # A picture of a state drawn on demand imports the pictures, which read
    # the state: that is a cycle, counting imports inside functions, and
    # the hooks are the only ones.
    hooks = LAZY_PICTURES | {"troedler.jax.engine"}
    assert import_cycles(lazy=True) != []
    assert import_cycles(lazy=True, hooks=frozenset(hooks)) == []
