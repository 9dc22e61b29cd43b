"""The page's screenshots in the docs are the ones tools/screenshots.py takes:
the lobby, a match and its end, at each width, each shown on a page."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "screenshots.py"


def _widths() -> list[str]:
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "SIZES":
            return [str(key.value) for key in node.value.keys]  # type: ignore[attr-defined]
    raise AssertionError("tools/screenshots.py names no SIZES")


def test_every_screenshot_the_script_takes_is_kept_and_shown() -> None:
    pages = (ROOT / "docs" / "play.md").read_text() + (ROOT / "docs" / "server.md").read_text()
    widths = _widths()
    assert widths == ["1400", "390"]
    for screen in ("lobby", "match", "end"):
        for width in widths:
            name = f"{screen}-{width}.png"
            image = ROOT / "docs" / "images" / name
            assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
            assert f"(images/{name})" in pages, name
