"""Colours, line styles and sizes of the board picture, in one place.

Colours come from a palette that readers with the common forms of colour
blindness can tell apart, and nothing is told by colour alone: route kinds
also differ in line style, goods carry their letters, carts their seat
numbers.
"""

from __future__ import annotations

import attrs

from troedler.core.board import RouteKind
from troedler.core.goods import Good
from troedler.core.state import Position

__all__ = [
    "GOOD_COLOURS",
    "GOOD_NAMES",
    "ROUTE_NAMES",
    "ROUTE_STYLES",
    "SEAT_COLOURS",
    "RouteStyle",
    "seat_colour",
]

SEAT_COLOURS = ("#d55e00", "#0072b2", "#009e73", "#cc79a7")
"""The colour of each start village, in the board's seat-colour order; a seat
takes the colour of its start village."""


def seat_colour(position: Position, seat: int) -> str:
    """The colour of ``seat``: that of its start village."""
    board = position.board
    start = board.start_village(seat, position.num_players)
    return SEAT_COLOURS[board.start_villages.index(start) % len(SEAT_COLOURS)]


@attrs.frozen
class RouteStyle:
    """How one kind of route is drawn."""

    colour: str
    width: float
    dash: str | None = None
    """An SVG dash pattern, or None for a solid line."""
    rails: bool = False
    """Drawn as two rails (a light line inside the coloured one)."""


ROUTE_STYLES = {
    RouteKind.MOUNTAIN_TRAIL: RouteStyle("#8c5a2b", 5.5, dash="0.5 8.5"),
    RouteKind.BRIDGE: RouteStyle("#4d4d4d", 8.0, rails=True),
    RouteKind.FERRY: RouteStyle("#3b8ed0", 4.0, dash="13 7"),
    RouteKind.MOOR_PATH: RouteStyle("#6a8f1f", 4.0, dash="15 5 3 5"),
}
"""Colour and line style of each route kind: dotted trails, two-railed
bridges, dashed ferries, dash-dotted moor paths."""

ROUTE_NAMES = {
    RouteKind.MOUNTAIN_TRAIL: "mountain trail",
    RouteKind.BRIDGE: "bridge",
    RouteKind.FERRY: "ferry",
    RouteKind.MOOR_PATH: "moor path",
}

GOOD_COLOURS = {
    Good.ANVIL: "#5b6770",
    Good.BOTTLE: "#2e8b57",
    Good.CHAIR: "#9c5b2e",
    Good.CUP: "#d9a400",
    Good.POT: "#c2453d",
    Good.VASE: "#3d6fb6",
}
"""Token colour of each good; the token also shows the good's letter."""

GOOD_NAMES = {good: good.name.lower() for good in Good}

PAPER = "#f7f1e3"
INK = "#2b2b2b"
FAINT = "#8a8478"
VILLAGE_FILL = "#fffaf0"
HIGHLIGHT = "#ffc61a"
CARD_FILL = {
    "route": "#ffffff",
    "extra": "#fff3c4",
    "feed": "#ffe0cc",
    "request": "#eef4ff",
    "unknown": "#d9d4c7",
}
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
"""The typeface of the pictures and pages, then its fallbacks."""
