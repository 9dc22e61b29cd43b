"""Pictures of a game: the board and a side panel as self-contained SVG.

>>> import troedler, troedler.svg
>>> picture = troedler.svg.board(troedler.new_game(4, seed=1), size=600)
>>> picture.startswith("<svg") and picture.count('class="village') == 17
True

:func:`board` draws a :class:`~troedler.GameState` (everything on and around
the table) or an :class:`~troedler.Observation` (only what that seat knows).
The map shows the villages with their names and goods, the start villages in
their seat's colour, the routes (the four kinds differ in colour *and* line
style; parallel routes lie side by side), the carts, and a legend; the panel
shows hands, dealer piles, the discard pile and a row of scores per seat.
Every village, route and cart is an element with a class and ``data-``
attributes naming it, so pages and tests can find them.

The page that replays a recorded game in a browser is the client's page
(:func:`troedler.server.replay.replay_html`); this package draws pictures
only.

Only the standard library is used, and the core never imports this package.
"""

from __future__ import annotations

from collections.abc import Sequence

from troedler.core.errors import ConfigurationError, quote
from troedler.core.moves import Move
from troedler.core.state import Position
from troedler.svg.drawing import Picture, picture
from troedler.svg.layout import layout
from troedler.svg.style import GOOD_COLOURS, ROUTE_STYLES, SEAT_COLOURS, RouteStyle

__all__ = [
    "GOOD_COLOURS",
    "ROUTE_STYLES",
    "SEAT_COLOURS",
    "Picture",
    "RouteStyle",
    "board",
    "board_picture",
    "layout",
]


def board_picture(
    position: Position,
    *,
    last_move: Move | None = None,
    before: Position | None = None,
    names: Sequence[str] | None = None,
    min_height: float = 0.0,
    panel: bool = True,
) -> Picture:
    """The picture of ``position`` as parts; :func:`board` joins them.

    ``panel=False`` draws the map alone, for a page that shows the panel as
    HTML beside it.
    """
    _check_position(position)
    seats = position.num_players
    if names is None:
        names = tuple(f"seat {seat}" for seat in range(seats))
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ConfigurationError(
            f"names must be a sequence of {seats} seat names, not {quote(names)}"
        )
    if len(names) != seats:
        raise ConfigurationError(f"names: {seats} seat names needed, got {len(names)}")
    for seat, name in enumerate(names):
        if not isinstance(name, str):
            raise ConfigurationError(f"names[{seat}] must be text, not {quote(name)}")
    if before is not None:
        _check_position(before)
        if before.board != position.board or before.num_players != seats:
            raise ConfigurationError("before must be a position of the same game")
    return picture(
        position,
        names=names,
        last_move=last_move,
        before=before,
        min_height=min_height,
        panel=panel,
    )


def _check_position(position: object) -> None:
    if not isinstance(position, Position):
        raise ConfigurationError(
            f"expected a GameState or an Observation to draw, got {type(position).__name__}"
        )


def board(
    position: Position,
    *,
    size: int | None = None,
    last_move: Move | None = None,
    before: Position | None = None,
    names: Sequence[str] | None = None,
    panel: bool = True,
) -> str:
    """``position`` drawn as a self-contained SVG document.

    ``size`` is the width in pixels (None: the picture scales to its
    container). ``last_move`` is highlighted: the route taken, the good
    taken, the goods delivered; ``before``, the position the move was made
    in, tells the picture where the cart came from and who moved. ``names``
    names the seats (default ``seat 0``, ``seat 1`` ...). ``panel=False``
    leaves the side panel out.
    """
    drawn = board_picture(position, last_move=last_move, before=before, names=names, panel=panel)
    return drawn.svg(size)
