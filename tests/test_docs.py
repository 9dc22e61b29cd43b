"""The README's example runs, and docs/rules.md explains every rule id."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_example_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert blocks
    # In order and in one namespace, as a reader would type them in.
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own README


RULE_IDS = (
    [f"C{i}" for i in range(1, 6)]
    + [f"S{i}" for i in range(1, 7)]
    + [f"R{i}" for i in range(1, 7)]
    + [f"T{i}" for i in range(1, 9)]
    + ["T5a", "T5b", "T5c"]
    + [f"E{i}" for i in range(1, 8)]
    + [f"I{i}" for i in range(1, 4)]
)


def test_every_rule_id_is_explained_and_tested() -> None:
    rules_doc = (ROOT / "docs" / "rules.md").read_text()
    test_names = " ".join(
        re.findall(
            r"def (test_\w+)", " ".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py"))
        )
    )
    for rule in RULE_IDS:
        assert f"**{rule}**" in rules_doc, rule
        assert f"test_{rule}_" in test_names, rule


def test_format_doc_examples_read_back() -> None:
    from troedler import GameRecord, state_from_json

    text = (ROOT / "docs" / "format.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 2
    record = GameRecord.from_json(blocks[0])
    assert record.moves == ("discard 0", "take 1", "take 2")
    state = state_from_json(blocks[1])
    assert state.round == 1 and state.current_player == state.dealer


def test_every_picture_and_page_a_markdown_page_links_to_is_there() -> None:
    # The Markdown is read on its own too (in a clone, on a code host): each
    # picture and each relative link resolves to a file beside the page.
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
    missing = []
    seen = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text):
            if target.startswith(("http:", "https:", "mailto:")):
                continue
            if target.startswith("../replays/"):
                continue  # a whole game's replay page, drawn only on the built site
            seen += 1
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert seen > 50
    assert missing == []


def test_the_docs_install_from_the_checkout() -> None:
    # troedler is installed from its source, not from a package index, so
    # `pip install 'troedler[extra]'` fails; `pip install -e '.[extra]'` works.
    # The pages, the docstrings they show and the errors say the same.
    pages = [
        *sorted((ROOT / "docs").rglob("*.md")),
        ROOT / "README.md",
        *sorted((ROOT / "src").rglob("*.py")),
    ]
    wrong = [
        f"{page.relative_to(ROOT)}: {line.strip()}"
        for page in pages
        for line in page.read_text(encoding="utf-8").splitlines()
        if re.search(r"pip install (-\w+ )*'?troedler\b", line)
    ]
    assert wrong == []
