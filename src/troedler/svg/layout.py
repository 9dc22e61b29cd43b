"""Where the picture draws each village: the board's own positions, or a
computed layout for a board that has none.

Both come out in picture units, with room for a village's box and the carts
above it: any two villages are at least :data:`SPACING_X` apart across or
:data:`SPACING_Y` apart down, so their boxes never overlap.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from troedler.core.board import Board

__all__ = ["FRAME", "SPACING_X", "SPACING_Y", "layout", "overlapping"]

FRAME = 1000.0
"""The longer side of the box a board's own positions are fitted into."""
SPACING_X = 150.0
SPACING_Y = 118.0
EDGE_LENGTH = 210.0
"""The length a computed layout aims at for one route."""

Point = tuple[float, float]


def layout(board: Board) -> dict[str, Point]:
    """Each village's centre in picture units, the top-left corner near (0, 0).

    A board with positions keeps their shape, scaled so that its longer side
    spans :data:`FRAME`. A board without them gets a computed layout: the
    same board always gives the same one, and no two villages overlap.
    """
    positions = tuple(village.position for village in board.villages)
    return dict(zip((v.name for v in board.villages), _layout(board, positions), strict=True))


@functools.lru_cache(maxsize=16)
def _layout(board: Board, positions: tuple[Point | None, ...]) -> tuple[Point, ...]:
    # Positions take no part in board equality, so they are part of the key.
    given = [p for p in positions if p is not None]
    if len(given) == len(positions):
        return _fitted(given)
    return _computed(board)


def _fitted(points: Sequence[Point]) -> tuple[Point, ...]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = FRAME / span
    return tuple(((x - min(xs)) * scale, (y - min(ys)) * scale) for x, y in points)


def overlapping(points: Sequence[Point]) -> list[tuple[int, int]]:
    """Pairs of villages (by index) drawn too close together: their boxes would overlap."""
    return [
        (i, j)
        for i in range(len(points))
        for j in range(i + 1, len(points))
        if abs(points[i][0] - points[j][0]) < SPACING_X - 1e-6
        and abs(points[i][1] - points[j][1]) < SPACING_Y - 1e-6
    ]


def _distances(board: Board) -> list[list[int]]:
    """Routes needed from each village to each other (breadth first)."""
    n = len(board.villages)
    table = []
    for start in range(n):
        row = [-1] * n
        row[start] = 0
        frontier = [start]
        while frontier:
            nxt = []
            for here in frontier:
                for there in board.targets(here):
                    if row[there] < 0:
                        row[there] = row[here] + 1
                        nxt.append(there)
            frontier = nxt
        table.append(row)
    return table


def _computed(board: Board) -> tuple[Point, ...]:
    """Stress majorization: straight-line distances follow route distances.

    It starts from the villages on a circle in board order and makes a fixed
    number of sweeps, so it is deterministic; then pushes apart any villages
    still too close, and rounds to whole units.
    """
    n = len(board.villages)
    far = _distances(board)
    points = [
        (
            EDGE_LENGTH * n / 6 * math.cos(2 * math.pi * i / n),
            EDGE_LENGTH * n / 6 * math.sin(2 * math.pi * i / n),
        )
        for i in range(n)
    ]
    for _ in range(300):
        for i in range(n):
            total_weight = sx = sy = 0.0
            xi, yi = points[i]
            for j in range(n):
                if i == j:
                    continue
                want = far[i][j] * EDGE_LENGTH
                weight = 1.0 / (want * want)
                xj, yj = points[j]
                gap = math.hypot(xi - xj, yi - yj) or 1e-9
                sx += weight * (xj + want * (xi - xj) / gap)
                sy += weight * (yj + want * (yi - yj) / gap)
                total_weight += weight
            points[i] = (sx / total_weight, sy / total_weight)
    points = _spread(points)
    left = min(x for x, _ in points)
    top = min(y for _, y in points)
    return tuple((round(x - left), round(y - top)) for x, y in points)


def _spread(points: list[Point]) -> list[Point]:
    """Push apart villages whose boxes would overlap, the cheaper way each time."""
    points = list(points)
    for _ in range(1000):
        clashes = overlapping(points)
        if not clashes:
            break
        for i, j in clashes:
            (xi, yi), (xj, yj) = points[i], points[j]
            dx, dy = xj - xi, yj - yi
            need_x = SPACING_X + 1 - abs(dx)
            need_y = SPACING_Y + 1 - abs(dy)
            if need_x / SPACING_X <= need_y / SPACING_Y:
                sign = 1.0 if dx > 0 or (dx == 0 and i < j) else -1.0
                points[i] = (xi - sign * need_x / 2, yi)
                points[j] = (xj + sign * need_x / 2, yj)
            else:
                sign = 1.0 if dy > 0 or (dy == 0 and i < j) else -1.0
                points[i] = (xi, yi - sign * need_y / 2)
                points[j] = (xj, yj + sign * need_y / 2)
    return points
