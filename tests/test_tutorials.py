"""Every page of the documentation site that teaches by example runs.

The ```` ```python ```` blocks of a page run in order in one namespace, as a
reader pasting them into one session would run them. A page that needs an
optional extra names the modules in its front matter (``requires:
[pettingzoo]``); without them the page is skipped with that reason, except
in CI, where every extra is installed and a missing one is a failure.

A block that is not meant to run as written (a signature, a piece of a
larger program) is marked by the line ``<!-- fragment -->`` just above it;
every other Python block of ``docs/`` runs in the suite, here or (for the
pages of an optional extra with tests of their own) in :data:`RUN_ELSEWHERE`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

from tests.extras import skip_reason

DOCS = Path(__file__).resolve().parents[1] / "docs"
# The start page, every tutorial (their index only lists them) and the pages
# that teach by example.
PAGES = [DOCS / "index.md", DOCS / "data-files.md", DOCS / "pictures.md", DOCS / "bots.md"] + [
    page for page in sorted((DOCS / "tutorials").glob("*.md")) if page.name != "index.md"
]
RUN_ELSEWHERE = {
    "rl.md": "tests/test_rl_pettingzoo.py",
    "format.md": "tests/test_position.py",
    "jax.md": "tests/jax_checks.py",
    "openspiel.md": "tests/test_openspiel.py",
    "protocol.md": "tests/test_program_bots.py",
}
"""Pages whose blocks their own tests run, with what they need installed."""
FRAGMENT = "<!-- fragment -->"
BLOCK = re.compile(r"^```python\n(.*?)^```$", flags=re.DOTALL | re.MULTILINE)
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", flags=re.DOTALL)
LIST = r"^{}:\s*\[(.*)\]\s*$"


def blocks(text: str) -> list[str]:
    """The Python code blocks of a page that run, in order (not the fragments)."""
    return [
        found.group(1)
        for found in BLOCK.finditer(text)
        if not text[: found.start()].rstrip("\n").endswith(FRAGMENT)
    ]


def front_matter_list(text: str, key: str) -> list[str]:
    """The names listed under ``key`` in a page's front matter."""
    front = FRONT_MATTER.match(text)
    found = re.search(LIST.format(key), front.group(1), flags=re.MULTILINE) if front else None
    if found is None:
        return []
    return [name.strip().strip("'\"") for name in found.group(1).split(",") if name.strip()]


def missing_modules(names: list[str]) -> list[str]:
    """Those of ``names`` that cannot be imported here."""
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # a parent package is missing
            found = False
        if not found:
            missing.append(name)
    return missing


def test_the_collector_finds_blocks_and_requirements() -> None:
    text = "---\nrequires: [pettingzoo, 'numpy']\n---\n# x\n```python\na = 1\n```\n```sh\nls\n```\n"
    assert blocks(text) == ["a = 1\n"]
    assert blocks(f"{text}\n{FRAGMENT}\n```python\ndef f(): ...\n```\n") == ["a = 1\n"]
    assert front_matter_list(text, "requires") == ["pettingzoo", "numpy"]
    assert front_matter_list("# no front matter\n", "requires") == []
    assert missing_modules(["troedler", "troedler.nothing.here", "troedler.nothing"]) == [
        "troedler.nothing.here",
        "troedler.nothing",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(DOCS)))
def test_every_code_block_of_the_page_runs_in_order(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = page.read_text(encoding="utf-8")
    missing = missing_modules(front_matter_list(text, "requires"))
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs every extra, but {', '.join(missing)} is missing")
        pytest.skip(f"{page.name} {skip_reason([name.split('.')[0] for name in missing])}")
    code = blocks(text)
    assert code, f"{page.name} has no python block"
    monkeypatch.chdir(tmp_path)  # a page that writes a file writes it here
    monkeypatch.setattr(sys, "path", list(sys.path))  # and may put this folder on the path
    namespace: dict[str, object] = {"__name__": "__tutorial__"}
    for number, block in enumerate(code, start=1):
        where = f"{page.relative_to(DOCS)}, block {number}"
        exec(compile(block, where, "exec"), namespace)  # noqa: S102 - our own pages


def test_every_python_block_of_the_docs_runs_in_the_suite_or_is_a_fragment() -> None:
    run = {page.relative_to(DOCS) for page in PAGES}
    for page in sorted(DOCS.rglob("*.md")):
        name = page.relative_to(DOCS)
        text = page.read_text(encoding="utf-8")
        if name in run or str(name) in RUN_ELSEWHERE:
            continue
        assert not blocks(text), f"{name}: a python block neither run nor marked {FRAGMENT}"
    for name, test in RUN_ELSEWHERE.items():
        assert f'"docs" / "{name}"' in (DOCS.parent / test).read_text(encoding="utf-8"), name
