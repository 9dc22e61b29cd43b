"""The board: villages, the routes between them, and the start villages.

The printed map is not public, so the default board (``data/board.toml``) is a
reconstruction that keeps every stated fact of C4. A player who owns the game
can type up the real map in the same format and load it with
:func:`load_board`.
"""

from __future__ import annotations

import enum
import functools
import math
import re
import types
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from troedler.core.datafile import Fields, read_packaged_toml, read_toml
from troedler.core.errors import ConfigurationError, FormatError, NotationError, quote
from troedler.core.goods import TOTAL_GOODS

__all__ = [
    "ANY_KIND",
    "NUM_START_VILLAGES",
    "NUM_VILLAGES",
    "ROUTE_ENDS",
    "ROUTE_WORDS",
    "Board",
    "Route",
    "RouteKind",
    "Village",
    "default_board",
    "load_board",
]

NUM_VILLAGES = 17
NUM_START_VILLAGES = 4
ROUTE_ENDS = 2
"""A route joins two villages."""
_AXES = 2
"""A village's position on the drawing: x and y."""

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9'-]*\Z")


ROUTE_WORDS = ("trail", "bridge", "ferry", "moor")
"""The notation word of each route kind, in :class:`RouteKind` order."""


class RouteKind(enum.IntEnum):
    """The four kinds of route (C2, C4)."""

    MOUNTAIN_TRAIL = 0
    BRIDGE = 1
    FERRY = 2
    MOOR_PATH = 3

    @property
    def code(self) -> str:
        """The notation word: ``trail``, ``bridge``, ``ferry`` or ``moor``."""
        return ROUTE_WORDS[self]

    @classmethod
    def parse(cls, text: str) -> RouteKind:
        """The route kind named by its notation word or enum name (any case)."""
        if not isinstance(text, str):
            raise NotationError(f"expected a route kind, got {quote(text)}")
        key = text.strip().lower()
        for kind in cls:
            if key in (ROUTE_WORDS[kind], kind.name.lower()):
                return kind
        raise NotationError(f"expected a route kind ({', '.join(ROUTE_WORDS)}), got {quote(text)}")


ANY_KIND = len(RouteKind)
"""Where "a route of any kind" (special feed, T5a) comes after the route
kinds, in the tables kept by route kind."""


def _as_tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    """``value`` as a tuple, so that a board never shares a list with its caller."""
    if isinstance(value, str | bytes):
        raise ConfigurationError(f"board: expected a sequence, got {quote(value)}")
    try:
        return tuple(value)
    except TypeError:
        raise ConfigurationError(f"board: expected a sequence, got {quote(value)}") from None


@attrs.frozen
class Village:
    """A village of the board.

    ``number`` is the number printed on it: how many goods it receives at
    set-up (S4); 0 for a village without a number. ``position`` is where
    pictures draw it, ``(x, y)`` with y growing downwards, or None to let
    them compute a layout. Positions are not rules: they take no part in
    equality, hashing or the board's fingerprint.
    """

    name: str
    number: int = 0
    position: tuple[float, float] | None = attrs.field(default=None, eq=False)


@attrs.frozen
class Route:
    """One route of the board: its kind and the two villages it joins."""

    ends: tuple[str, str] = attrs.field(converter=_as_tuple)
    kind: RouteKind


@attrs.frozen(cache_hash=True)
class Board:
    """The map: villages, routes, and the start villages in seat-colour order.

    ``villages[i]`` is the village whose goods a game state keeps at index
    ``i``. Construction checks C4 and raises :class:`ConfigurationError`
    naming the offending field.
    """

    villages: tuple[Village, ...] = attrs.field(converter=_as_tuple)
    routes: tuple[Route, ...] = attrs.field(converter=_as_tuple)
    start_villages: tuple[str, ...] = attrs.field(converter=_as_tuple)
    # Read-only: every game on this board shares it.
    positions: Mapping[str, int] = attrs.field(init=False, eq=False, repr=False)
    """Each village's position in :attr:`villages`, by name (read-only):
    :meth:`index` of every village at once."""
    _targets: tuple[tuple[tuple[int, ...], ...], ...] = attrs.field(
        init=False, eq=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        problem = _first_problem(self.villages, self.routes, self.start_villages)
        if problem is not None:
            raise ConfigurationError(f"board {problem[0]}: {problem[1]}")
        index = {village.name: i for i, village in enumerate(self.villages)}
        # targets[v][k]: villages one route of kind k away from v; targets[v][ANY_KIND]: any kind.
        linked: list[list[set[int]]] = [[set() for _ in range(ANY_KIND + 1)] for _ in self.villages]
        for route in self.routes:
            a, b = index[route.ends[0]], index[route.ends[1]]
            for here, there in ((a, b), (b, a)):
                linked[here][route.kind].add(there)
                linked[here][ANY_KIND].add(there)
        object.__setattr__(self, "positions", types.MappingProxyType(index))
        object.__setattr__(
            self, "_targets", tuple(tuple(tuple(sorted(s)) for s in row) for row in linked)
        )

    def __copy__(self) -> Board:
        return self

    def __deepcopy__(self, memo: object) -> Board:
        # A value shared by every game on it: a copy would be equal in every way.
        return self

    def index(self, village: str) -> int:
        """The position of ``village`` in :attr:`villages`; KeyError if unknown."""
        return self.positions[village]

    def has_village(self, name: str) -> bool:
        """Whether a village of this name is on the board."""
        try:
            return name in self.positions
        except TypeError:  # unhashable: certainly not a village name
            return False

    def village_named(self, text: str) -> str:
        """The board's spelling of the village named ``text`` (any case)."""
        if text in self.positions:
            return text
        if not isinstance(text, str):
            raise NotationError(f"expected a village of the board, got {quote(text)}")
        folded = text.strip().casefold()
        for village in self.villages:
            if village.name.casefold() == folded:
                return village.name
        raise NotationError(f"expected a village of the board, got {quote(text)}")

    def neighbours(self, village: str, kind: RouteKind | None = None) -> tuple[str, ...]:
        """Villages one route away from ``village``; only routes of ``kind`` if given.

        Each neighbour is listed once, in board order, however many routes
        lead there.
        """
        row = self._targets[self.positions[village]]
        return tuple(self.villages[i].name for i in row[ANY_KIND if kind is None else kind])

    def targets(self, village: int, kind: RouteKind | None = None) -> tuple[int, ...]:
        """Like :meth:`neighbours`, by position in :attr:`villages`."""
        return self._targets[village][ANY_KIND if kind is None else kind]

    def route_kinds(self, village: str) -> frozenset[RouteKind]:
        """The kinds of route that leave ``village``."""
        row = self._targets[self.positions[village]]
        return frozenset(kind for kind in RouteKind if row[kind])

    def start_village(self, seat: int, num_players: int) -> str:
        """The start village of ``seat`` in a game of ``num_players`` (S2).

        Seats are spread evenly over the start villages in seat-colour
        order, so with two players they sit on opposite colours.
        """
        return self.start_villages[seat * len(self.start_villages) // num_players]


def _first_problem(
    villages: tuple[Village, ...], routes: tuple[Route, ...], start_villages: tuple[str, ...]
) -> tuple[str, str] | None:
    """The first C4 violation as (field, message), or None."""
    if len(villages) != NUM_VILLAGES:
        return "villages", f"expected {NUM_VILLAGES} villages (C4), got {len(villages)}"
    seen: dict[str, int] = {}
    for i, village in enumerate(villages):
        if not isinstance(village, Village) or not isinstance(village.name, str):
            return f"villages[{i}]", "expected a Village with a name"
        if not _NAME.match(village.name):
            return f"villages[{i}].name", (
                f"{quote(village.name)} must be one word of letters, digits, ' or -"
            )
        folded = village.name.casefold()
        if folded in seen:
            return f"villages[{i}].name", f"{quote(village.name)} repeats villages[{seen[folded]}]"
        seen[folded] = i
        if type(village.number) is not int or not 0 <= village.number <= TOTAL_GOODS:
            return (
                f"villages[{i}].number",
                f"expected 0 to {TOTAL_GOODS}, got {quote(village.number)}",
            )
    problem = _position_problem(villages)
    if problem is not None:
        return problem
    total = sum(village.number for village in villages)
    if total != TOTAL_GOODS:
        return "villages", f"the village numbers add up to {total}, not {TOTAL_GOODS} (C4)"
    names = {village.name for village in villages}
    linked: dict[str, set[str]] = {name: set() for name in names}
    for j, route in enumerate(routes):
        if not isinstance(route, Route) or not isinstance(route.kind, RouteKind):
            return f"routes[{j}]", "expected a Route with a RouteKind"
        if len(route.ends) != ROUTE_ENDS:
            return f"routes[{j}].between", "expected two villages"
        for end in route.ends:
            if not isinstance(end, str) or end not in names:
                return f"routes[{j}].between", f"{quote(end)} is not a village of the board"
        a, b = route.ends
        if a == b:
            return f"routes[{j}].between", f"a route cannot lead from {a} to itself"
        linked[a].add(b)
        linked[b].add(a)
    for village in villages:
        if not linked[village.name]:
            return "routes", f"no route leaves {village.name}"
    first = villages[0].name
    reached, frontier = {first}, [first]
    while frontier:
        for there in linked[frontier.pop()] - reached:
            reached.add(there)
            frontier.append(there)
    if len(reached) != len(names):
        cut_off = sorted(names - reached)[0]
        return "routes", f"{cut_off} cannot be reached from {first} (C4)"
    if len(start_villages) != NUM_START_VILLAGES:
        return "start_villages", (
            f"expected {NUM_START_VILLAGES} start villages (C4), got {len(start_villages)}"
        )
    for k, name in enumerate(start_villages):
        if not isinstance(name, str) or name not in names:
            return f"start_villages[{k}]", f"{quote(name)} is not a village of the board"
        if name in start_villages[:k]:
            return f"start_villages[{k}]", f"{quote(name)} is listed twice"
    return None


MAX_POSITION = 10_000


def _position_problem(villages: tuple[Village, ...]) -> tuple[str, str] | None:
    """The first bad village position as (field, message), or None."""
    placed = [village.position is not None for village in villages]
    if any(placed) and not all(placed):
        i = placed.index(False)
        return f"villages[{i}].position", "missing: give a position to every village or to none"
    seen: dict[tuple[float, float], int] = {}
    for i, village in enumerate(villages):
        where = village.position
        if where is None:
            continue
        if (
            not isinstance(where, tuple)
            or len(where) != _AXES
            or not all(type(c) in (int, float) and math.isfinite(c) for c in where)
            or not all(0 <= c <= MAX_POSITION for c in where)
        ):
            return f"villages[{i}].position", (
                f"expected two numbers 0 to {MAX_POSITION}, got {quote(where)}"
            )
        key = (float(where[0]), float(where[1]))
        if key in seen:
            return f"villages[{i}].position", f"the same as villages[{seen[key]}]'s"
        seen[key] = i
    return None


def _board_from_toml(source: str, data: object) -> Board:
    top = Fields(source, "", data)
    top.only("villages", "routes", "start_villages")
    villages = []
    for entry in top.tables("villages"):
        entry.only("name", "number", "position")
        number = entry.integer("number", 0, TOTAL_GOODS) if "number" in entry.table else 0
        position = None
        if "position" in entry.table:
            where = entry.array("position")
            numbers = [c for c in where if isinstance(c, int | float) and not isinstance(c, bool)]
            if len(where) != _AXES or len(numbers) != _AXES:
                raise entry.error("position", f"expected [x, y], got {quote(where)}")
            position = (float(numbers[0]), float(numbers[1]))
        villages.append(Village(entry.string("name"), number, position))
    routes = []
    for entry in top.tables("routes"):
        entry.only("between", "kind")
        ends = entry.array("between")
        if len(ends) != ROUTE_ENDS or not all(isinstance(end, str) for end in ends):
            raise entry.error("between", f"expected two village names, got {quote(ends)}")
        try:
            kind = RouteKind.parse(entry.string("kind"))
        except NotationError as error:
            raise entry.error("kind", str(error)) from None
        routes.append(Route((str(ends[0]), str(ends[1])), kind))
    starts = top.array("start_villages")
    for k, name in enumerate(starts):
        if not isinstance(name, str):
            raise top.error(f"start_villages[{k}]", "expected a village name")
    checked = (tuple(villages), tuple(routes), tuple(str(name) for name in starts))
    problem = _first_problem(*checked)
    if problem is not None:
        raise FormatError(source, problem[0], problem[1])
    return Board(*checked)


def load_board(path: str | Path) -> Board:
    """Load a board from a TOML file; :class:`FormatError` names file and field.

    The format is that of the default board, ``troedler/data/board.toml``.
    """
    return _board_from_toml(*read_toml(path))


@functools.cache
def default_board() -> Board:
    """The reconstructed default board shipped with troedler (C4)."""
    return _board_from_toml(*read_packaged_toml("board.toml"))
