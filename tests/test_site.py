"""The documentation site builds strictly and documents every public name.

The site is built once per test session with ``mkdocs build --strict`` (any
broken link, reference or anchor fails it) into a temporary folder. Needs
the ``docs`` extra; skipped without it, except in CI.
"""

from __future__ import annotations

import importlib.util
import pkgutil
import re
import statistics
import zlib
from pathlib import Path
from types import ModuleType

import pytest

import troedler
from tests.site_build import ROOT, built_site, require_docs_extra
from troedler import IllegalMoveError
from troedler.core.errors import DOCS_URL

require_docs_extra()

import griffe  # noqa: E402 - only with the docs extra

from tests.test_docs import RULE_IDS  # noqa: E402

# Modules whose __all__ is public API, and subpackages that are not API.
PUBLIC_MODULES = [
    "troedler",
    "troedler.bots",
    "troedler.seat",
    "troedler.core.chance",
    "troedler.simulation",
    "troedler.svg",
    "troedler.client",
    "troedler.encoding.action_ids",
    "troedler.bots.neural",
    "troedler.bots.learned",
    "troedler.bots.value",
    "troedler.learning.sprt",
    "troedler.adapters.openspiel",
    "troedler.adapters.pettingzoo",
    "troedler.encoding.tensors",
    "troedler.jax",
    "troedler.server",
]
NOT_API = {"troedler.cli", "troedler.text", "troedler.io"}
# Public names defined outside an __all__ the reference walks.
ALSO_PUBLIC = ["troedler.core.errors.DOCS_URL"]


@pytest.fixture
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_site(tmp_path_factory)


def inventory(site: Path) -> dict[str, str]:
    """The site's object inventory (objects.inv): each documented name and its URL."""
    data = (site / "objects.inv").read_bytes()
    header_end = 0
    for _ in range(4):  # four text lines, then the zlib stream
        header_end = data.index(b"\n", header_end) + 1
    entries: dict[str, str] = {}
    for line in zlib.decompress(data[header_end:]).decode().splitlines():
        name, _domain_role, _priority, uri, *_ = line.split(" ")
        entries[name] = uri.replace("$", name)
    return entries


def _loaded() -> griffe.Module:
    # Read from the source, as the site is: modules that need an optional
    # extra (numpy for the tensors) are read without importing it.
    return griffe.load("troedler", search_paths=[str(ROOT / "src")], resolve_aliases=True)


def _find(package: griffe.Module, path: str) -> griffe.Object | griffe.Alias:
    return package if path == "troedler" else package[path.removeprefix("troedler.")]


def public_names() -> list[str]:
    """Every public name: each public module's __all__, by its import path."""
    package = _loaded()
    names = []
    for module in PUBLIC_MODULES:
        exports = _find(package, module).exports
        assert exports, f"{module} has no __all__"
        names += [f"{module}.{name}" for name in exports]
    return names + ALSO_PUBLIC


def test_public_names_are_read_as_python_sees_them() -> None:
    assert public_names()[: len(troedler.__all__)] == [f"troedler.{n}" for n in troedler.__all__]


def test_every_subpackage_is_either_public_api_or_not() -> None:
    # A new subpackage must be listed, and so documented, or declared not API.
    for info in pkgutil.iter_modules(troedler.__path__, "troedler."):
        if info.ispkg:
            public = [m for m in PUBLIC_MODULES if m == info.name or m.startswith(info.name + ".")]
            assert public or info.name in NOT_API, info.name


def test_every_public_name_has_a_docstring() -> None:
    package = _loaded()
    undocumented = []
    for path in public_names():
        obj = _find(package, path)
        if obj.docstring is None or not obj.docstring.value.strip():
            undocumented.append(path)
    assert undocumented == []


def test_every_public_name_is_in_the_api_reference(site: Path) -> None:
    documented = inventory(site)
    missing = [name for name in public_names() if name not in documented]
    assert missing == []
    assert all(documented[name].startswith("api/") for name in public_names())


def test_the_docs_url_is_the_sites_url() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"site_url: {DOCS_URL}\n" in config
    assert "use_directory_urls: false\n" in config  # help URLs name rules.html


def test_every_rule_ids_help_url_resolves_in_the_built_site(site: Path) -> None:
    """Each rule id's help URL names the rules page and an anchor on it."""
    rules_page = (site / "rules.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="([^"]+)"', rules_page))
    for rule in RULE_IDS:
        url = IllegalMoveError(rule, "a test").help_url
        page, _, anchor = url.removeprefix(DOCS_URL).partition("#")
        assert (site / page).is_file(), url
        assert anchor == rule and anchor in anchors, url


def test_error_messages_carry_the_rule_and_its_url() -> None:
    state = troedler.new_game(4, seed=1)
    with pytest.raises(IllegalMoveError) as raised:
        troedler.apply_move(state, troedler.TakePile(0), seat=3)
    assert raised.value.rule == "R4"
    assert raised.value.help_url == f"{DOCS_URL}rules.html#R4"


def test_the_changelog_is_on_the_site_and_the_site_is_not_in_git(site: Path) -> None:
    changelog = (site / "changelog.html").read_text(encoding="utf-8")
    assert f"{troedler.__version__}" in changelog and "0.1.0" in changelog
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "site/" in ignored


def test_the_site_loads_nothing_from_the_network(site: Path) -> None:
    # No web fonts, no scripts or styles from elsewhere: the site reads offline.
    remote = re.compile(r'(?:src|href)="(?:https?:)?//')
    for page in site.rglob("*.html"):
        for tag in re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", page.read_text("utf-8")):
            if 'rel="canonical"' not in tag:
                assert not remote.search(tag), (page.name, tag)


def test_every_picture_and_frame_on_the_site_is_there(site: Path) -> None:
    # mkdocs checks Markdown links; raw HTML (the embedded replay) is checked here.
    seen = 0
    for page in site.rglob("*.html"):
        for target in re.findall(
            r'<(?:img|iframe)\b[^>]*\bsrc="([^"#?]+)"', page.read_text("utf-8")
        ):
            if not target.startswith(("data:", "http:", "https:")):
                assert (page.parent / target).resolve().is_file(), (page.name, target)
                seen += 1
    assert seen >= 4  # the board, the replay and the two plots at least


def test_the_plots_are_drawn_from_the_results_the_same_every_time() -> None:
    plots = _plots_module()
    first, second = plots.plots(), plots.plots()
    assert first == second  # no dates, no random ids: rebuilding changes nothing
    assert set(first) == {"decision-cost.svg", "win-shares.svg", "ladder.svg"}
    runs = plots.read_runs(plots.RESULTS / "bench.jsonl")
    ply = statistics.median(run["chess_ply_us"] for run in runs)
    assert f"{ply:.1f} µs" in first["decision-cost.svg"]
    bots = plots.read_runs(plots.RESULTS / "bots.jsonl")[-1]
    share = bots["ismcts_vs_greedy"]["win_share_all"]
    assert f"{100 * share:.1f}%" in first["win-shares.svg"]
    ladder = plots.read_runs(plots.RESULTS / "ladder.jsonl")[-1]["table"]
    for row in ladder:
        assert (
            f">{row['bot']}<" in first["ladder.svg"] and f">{row['mu']:.1f}<" in first["ladder.svg"]
        )


def _plots_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("plots", ROOT / "benchmarks" / "plots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pictures_kept_in_the_docs_are_those_drawn_now() -> None:
    # The pages' pictures are kept in docs/images/ so that the Markdown shows
    # them on its own; `python tools/site_hooks.py` writes them again.
    spec = importlib.util.spec_from_file_location("site_hooks", ROOT / "tools" / "site_hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    drawn = hooks.kept_pictures()
    # (The page's screenshots beside them are tools/screenshots.py's.)
    kept = {
        f"images/{path.name}": path.read_text(encoding="utf-8")
        for path in (ROOT / "docs" / "images").glob("*.svg")
    }
    assert set(drawn) == set(kept)
    stale = [path for path, svg in drawn.items() if kept[path] != svg]
    assert stale == [], f"{stale}: run python tools/site_hooks.py"
