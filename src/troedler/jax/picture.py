"""Pictures of JAX games, drawn by :mod:`troedler.svg` through :func:`~troedler.jax.to_state`.

pgx's own visualizer knows only pgx's games; a :class:`~troedler.jax.State`
draws itself with troedler's pictures instead: ``state.to_svg()`` (also
what a notebook shows) and ``state.save_svg(filename)``. A batch is drawn
game by game in a row, the first :data:`MOST_DRAWN` games of a larger batch.
"""

from __future__ import annotations

import os

import numpy as np

from troedler.core.errors import ConfigurationError, quote
from troedler.jax.bridge import to_state, to_states
from troedler.jax.engine import State
from troedler.svg import board_picture
from troedler.svg.elements import num

__all__ = ["MOST_DRAWN", "save_state_svg", "state_svg"]

MOST_DRAWN = 16
"""The most games of a batch one picture shows."""

_GAP = 20.0
"""Space between the games of a batch, in the pictures' units."""


def state_svg(state: State, *, scale: float = 1.0) -> str:
    """One SVG document of ``state``: one game, or the first games of a batch side by side.

    ``scale`` multiplies the pictures' natural size (1: one unit a pixel).
    """
    if not isinstance(state, State):
        raise ConfigurationError(f"expected a troedler.jax State, got {quote(state)}")
    if not (isinstance(scale, (int, float)) and 0 < scale <= 100):
        raise ConfigurationError(f"scale must be a number above 0 up to 100, not {quote(scale)}")
    batched = np.ndim(state.current_player) == 1
    if batched:
        first = state if state.current_player.shape[0] <= MOST_DRAWN else _head(state)
        games = to_states(first)
    else:
        games = [to_state(state)]
    pictures = [board_picture(game) for game in games]
    if len(pictures) == 1:
        return pictures[0].svg(round(pictures[0].width * scale))
    width = sum(p.width for p in pictures) + _GAP * (len(pictures) - 1)
    height = max(p.height for p in pictures)
    parts, x = [], 0.0
    for drawn in pictures:
        parts.append(f'<g transform="translate({num(x)} 0)">{drawn.svg(round(drawn.width))}</g>')
        x += drawn.width + _GAP
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(width * scale)}" '
        f'height="{num(height * scale)}" viewBox="0 0 {num(width)} {num(height)}">'
        + "".join(parts)
        + "</svg>"
    )


def _head(state: State) -> State:
    import jax  # noqa: PLC0415 - only for a large batch

    return jax.tree_util.tree_map(lambda a: a[:MOST_DRAWN], state)  # type: ignore[no-any-return]


def save_state_svg(state: State, filename: str | os.PathLike[str], *, scale: float = 1.0) -> None:
    """Write :func:`state_svg` of ``state`` to ``filename``, which must end in ``.svg``."""
    if not isinstance(filename, (str, os.PathLike)) or not os.fspath(filename).endswith(".svg"):
        raise ConfigurationError(f"filename must end in .svg, not {quote(filename)}")
    text = state_svg(state, scale=scale)
    with open(filename, "w", encoding="utf-8") as file:
        file.write(text)
