"""Every page of the documentation site that teaches by example runs.

The ```` ```python ```` blocks of a page run in order in one namespace, as a
reader pasting them into one session would run them. A page that needs an
optional extra names the modules in its front matter (``requires:
[pettingzoo]``); without them the page is skipped with that reason, except
in CI, where every extra is installed and a missing one is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
# The start page, every tutorial (their index only lists them) and the pages
# that teach a format by example.
PAGES = [DOCS / "index.md", DOCS / "data-files.md"] + [
    page for page in sorted((DOCS / "tutorials").glob("*.md")) if page.name != "index.md"
]
BLOCK = re.compile(r"^```python\n(.*?)^```$", flags=re.DOTALL | re.MULTILINE)
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", flags=re.DOTALL)
LIST = r"^{}:\s*\[(.*)\]\s*$"


def blocks(text: str) -> list[str]:
    """The Python code blocks of a page, in order."""
    return BLOCK.findall(text)


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
        pytest.skip(f"{page.name} needs {', '.join(missing)} (an optional extra)")
    code = blocks(text)
    assert code, f"{page.name} has no python block"
    monkeypatch.chdir(tmp_path)  # a page that writes a file writes it here
    namespace: dict[str, object] = {"__name__": "__tutorial__"}
    for number, block in enumerate(code, start=1):
        where = f"{page.relative_to(DOCS)}, block {number}"
        exec(compile(block, where, "exec"), namespace)  # noqa: S102 - our own pages
