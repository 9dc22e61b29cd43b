"""Drawing a position: the map with its villages, routes, goods and carts, a
legend, and a side panel with cards and scores.

The picture is built as a list of parts, each one finished SVG element:
:func:`picture` returns them, and :func:`troedler.svg.board` joins them into
one document. The browser replay keeps each distinct part once, so parts are
cut where positions differ: one per village, per cart, per panel section.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

import attrs

from troedler.core.errors import ConfigurationError, quote
from troedler.core.moves import Move
from troedler.core.state import Position
from troedler.svg.elements import done, el, num, token_defs
from troedler.svg.layout import layout
from troedler.svg.map import LEGEND_H, carts, last_move_marks, legend, routes, village
from troedler.svg.panel import PANEL_W, Panel
from troedler.svg.style import FONT, PAPER

__all__ = ["Picture", "picture"]

MARGIN_X = 85.0
MARGIN_TOP = 70.0
MARGIN_BOTTOM = 55.0
PANEL_GAP = 16.0
MAX_SIZE = 100_000
"""The widest picture, in pixels, that ``size`` may ask for."""


@attrs.frozen
class Picture:
    """A drawn position: its size in picture units and its parts, in drawing order."""

    width: float
    height: float
    title: str
    parts: tuple[str, ...]

    def open_tag(self, size: int | None) -> str:
        """The ``<svg>`` start tag, ``size`` pixels wide if given."""
        root = ET.Element(
            "svg",
            {
                "xmlns": "http://www.w3.org/2000/svg",
                "viewBox": f"0 0 {num(self.width)} {num(self.height)}",
                "class": "troedler-board",
                "font-family": FONT,
            },
        )
        if size is not None:
            if type(size) is not int or not 1 <= size <= MAX_SIZE:
                raise ConfigurationError(
                    f"size must be a whole number of pixels from 1 to {MAX_SIZE} "
                    f"(or None, to scale with its container), not {quote(size)}"
                )
            root.set("width", str(size))
            root.set("height", num(size * self.height / self.width))
        text = ET.tostring(root, encoding="unicode")
        # ElementTree writes an empty element as <svg ... />: reopen it.
        return text[: -len(" />")] + ">"

    def svg(self, size: int | None = None) -> str:
        """The whole SVG document."""
        return self.open_tag(size) + "".join(self.parts) + "</svg>"


def picture(
    position: Position,
    *,
    names: Sequence[str],
    last_move: Move | None = None,
    before: Position | None = None,
    min_height: float = 0.0,
    panel: bool = True,
) -> Picture:
    """Draw ``position``: the map, the legend and the panel, as parts.

    ``min_height`` keeps pictures of one game the same size as the panel grows;
    ``panel=False`` draws the map and legend alone.
    """
    at = layout(position.board)
    width = max(x for x, _ in at.values()) + 2 * MARGIN_X
    height = max(y for _, y in at.values()) + MARGIN_TOP + MARGIN_BOTTOM
    at = {name: (x + MARGIN_X, y + MARGIN_TOP) for name, (x, y) in at.items()}
    marks = last_move_marks(position, before, last_move, names)
    drawn = routes(position, at, marks)
    for i, place in enumerate(position.board.villages):
        drawn.append(village(position, i, *at[place.name], marks))
    drawn.extend(carts(position, at, names))
    drawn.append(legend(14.0, height, width - 28))
    title = f"troedler: round {position.round}, {position.phase.value}"
    title_element = el(None, "title")
    title_element.text = title
    backgrounds = el(None, "g", class_="background")
    # Full height whatever the viewBox: pictures of one game then share these.
    el(backgrounds, "rect", x=0.0, y=0.0, width=width, height="100%", fill=PAPER)
    head = (done(title_element), token_defs())
    if not panel:
        map_h = max(height + LEGEND_H, min_height)
        return Picture(width, map_h, title, (*head, done(backgrounds), *drawn))
    side = Panel(position, names, width + PANEL_GAP)
    side.header(marks.caption)
    side.seats()
    side.hands()
    side.piles()
    total_h = max(height + LEGEND_H, side.y + 10, min_height)
    full_w = width + PANEL_W + PANEL_GAP
    el(
        backgrounds,
        "rect",
        x=width,
        y=0.0,
        width=PANEL_W + PANEL_GAP,
        height="100%",
        fill="#ffffff",
    )
    parts = (*head, done(backgrounds), *drawn, *side.parts, *side.faces.values())
    return Picture(full_w, total_h, title, parts)
