"""Goods: the six kinds of wares, and multisets of them.

A :class:`Goods` value is what a village holds, what a player has collected,
or what a goods request asks for. In notation each good is one letter::

    A anvil   B bottle   C chair   U cup   P pot   V vase

so ``Goods.parse("AAP")`` is two anvils and a pot (C1).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Iterable, Iterator
from typing import cast

import attrs

from troedler.core.errors import ConfigurationError, NotationError, quote

__all__ = [
    "GOODS_PER_KIND",
    "GOOD_CODES",
    "GOOD_KINDS",
    "TOTAL_GOODS",
    "Good",
    "Goods",
    "kinds_of",
]

GOOD_CODES = "ABCUPV"
"""The notation letter of each good, in :class:`Good` order."""


class Good(enum.IntEnum):
    """One of the six kinds of goods (C1)."""

    ANVIL = 0
    BOTTLE = 1
    CHAIR = 2
    CUP = 3
    POT = 4
    VASE = 5

    @property
    def code(self) -> str:
        """The good's notation letter (``"A"`` for anvil)."""
        return GOOD_CODES[self]

    @classmethod
    def parse(cls, text: str) -> Good:
        """The good whose letter or name is ``text`` (case-insensitive)."""
        if not isinstance(text, str):
            raise NotationError(f"expected a good, got {quote(text)}")
        key = text.strip().upper()
        if len(key) == 1 and key in GOOD_CODES:
            return cls(GOOD_CODES.index(key))
        try:
            return cls[key]
        except KeyError:
            raise NotationError(
                f"expected a good (one of {', '.join(GOOD_CODES)} or its name), got {quote(text)}"
            ) from None


GOOD_KINDS = len(Good)
"""The kinds of goods (C1): six."""
GOODS_PER_KIND = 8
"""Goods of each kind in the game (C1): no multiset a game meets holds more."""
TOTAL_GOODS = GOODS_PER_KIND * GOOD_KINDS
"""Goods in the game: 8 of each of the six kinds (C1). No :class:`Goods`
holds more of one kind, and the village numbers of a board add up to it."""

_ALL_GOODS = tuple(Good)
_LETTERS = {letter: i for i, code in enumerate(GOOD_CODES) for letter in (code, code.lower())}
_EMPTY_COUNTS = cast("tuple[int, int, int, int, int, int]", (0,) * GOOD_KINDS)
_BYTE = 256
"""Each count is one byte of a :class:`Goods` value's code: below 256 each."""
_STEP = tuple(_BYTE**good for good in _ALL_GOODS)
"""What one more of each good adds to a :class:`Goods` value's code."""

_INTERN_LIMIT = 50_000
"""Most distinct goods kept for sharing (about 25 MB at most): 200,000 random
decisions meet some 16,000."""


def _check_counts(instance: object, attribute: object, value: object) -> None:
    if (
        type(value) is not tuple
        or len(value) != GOOD_KINDS
        or any(type(n) is not int or not 0 <= n <= TOTAL_GOODS for n in value)
    ):
        raise ConfigurationError(
            f"goods counts must be six ints 0 to {TOTAL_GOODS}, got {quote(value)}"
        )


# No weak-reference slot (8 bytes): equal goods are interned, by the thousand.
@attrs.frozen(repr=False, weakref_slot=False)
class Goods:
    """A multiset of goods, stored as one count per :class:`Good`.

    Each count is 0 to :data:`TOTAL_GOODS` (48); anything else raises
    :class:`~troedler.ConfigurationError`.

    >>> g = Goods.parse("AAP")
    >>> len(g), g.count(Good.ANVIL), str(g.add(Good.VASE))
    (3, 2, 'AAPV')
    """

    counts: tuple[int, int, int, int, int, int] = attrs.field(
        default=_EMPTY_COUNTS, validator=_check_counts
    )
    _size: int = attrs.field(init=False, eq=False, repr=False)
    _kinds: tuple[Good, ...] = attrs.field(init=False, eq=False, repr=False)
    _code: int = attrs.field(init=False, eq=False, repr=False)
    """The counts as one int, a byte each: the key of the shared goods."""

    def __attrs_post_init__(self) -> None:
        # Set once, while the value is built, and never again: goods are read
        # far more often than made, so the derived facts are kept.
        object.__setattr__(self, "_size", sum(self.counts))
        object.__setattr__(self, "_kinds", tuple(g for g in _ALL_GOODS if self.counts[g]))
        object.__setattr__(self, "_code", int.from_bytes(bytes(self.counts), "little"))

    @classmethod
    def of(cls, goods: Iterable[Good]) -> Goods:
        """The multiset holding each good of ``goods`` once per occurrence."""
        counts = [0] * GOOD_KINDS
        try:
            for good in goods:
                i = _ALL_GOODS[good] if type(good) is Good else Good(good)
                counts[i] += 1
                if counts[i] > TOTAL_GOODS:
                    break
        except (TypeError, ValueError):
            raise ConfigurationError(f"expected goods, got {quote(goods)}") from None
        return _interned(tuple(counts))

    @classmethod
    def of_counts(cls, counts: Iterable[int]) -> Goods:
        """The multiset with ``counts[good]`` of each good."""
        try:
            key = tuple(counts)
        except TypeError:
            raise ConfigurationError(f"expected six counts, got {quote(counts)}") from None
        return _interned(key)

    @classmethod
    def parse(cls, text: str) -> Goods:
        """Goods from their letters (``"AAP"``); ``"-"`` or ``""`` is no goods.

        :class:`~troedler.NotationError` for anything else. Text read from
        outside leaves nothing behind: parsed goods are not shared.
        """
        if not isinstance(text, str):
            raise NotationError(f"expected goods like 'AAP', got {quote(text)}")
        stripped = text.strip()
        if stripped in ("", "-"):
            return EMPTY
        if len(stripped) > GOOD_KINDS * TOTAL_GOODS:
            raise NotationError(f"expected goods like 'AAP', got {len(stripped)} letters")
        counts = [0] * GOOD_KINDS
        for letter in stripped:
            i = _LETTERS.get(letter)
            counts[Good.parse(letter) if i is None else i] += 1
        if max(counts) > TOTAL_GOODS:
            raise NotationError(f"expected at most {TOTAL_GOODS} of a kind, got {quote(text)}")
        return cls(tuple(counts))  # type: ignore[arg-type]

    def count(self, good: Good) -> int:
        """How many of ``good`` there are."""
        return self.counts[good]

    def kinds(self) -> tuple[Good, ...]:
        """The distinct goods present, in :class:`Good` order."""
        return self._kinds

    def add(self, good: Good, number: int = 1) -> Goods:
        """These goods with ``number`` more of ``good``."""
        # A cart takes one good at a time, again and again: one more of a
        # kind is found among the shared goods by its code. Counts stay
        # below a byte, so adding to one never carries into the next.
        if number == 1 and type(good) is Good:
            found = _BY_CODE.get(self._code + _STEP[good])
            if found is not None:
                return found
        return self._changed(good, number)

    def remove(self, good: Good, number: int = 1) -> Goods:
        """These goods with ``number`` fewer of ``good``;
        :class:`~troedler.ConfigurationError` if there are too few."""
        if number == 1 and type(good) is Good and self.counts[good]:
            found = _BY_CODE.get(self._code - _STEP[good])
            if found is not None:
                return found
        return self._changed(good, -number)

    def _changed(self, good: Good, number: int) -> Goods:
        """These goods with ``number`` (may be negative) more of ``good``."""
        if (
            type(number) is not int
            or (type(good) is not Good and type(good) is not int)
            or not 0 <= good < GOOD_KINDS
        ):
            raise ConfigurationError(f"expected a good and a count, got {quote((good, number))}")
        counts = list(self.counts)
        counts[good] += number
        if counts[good] < 0:
            raise ConfigurationError(f"not enough {Good(good).name.lower()} to remove")
        return _interned(tuple(counts))

    def __add__(self, other: Goods) -> Goods:
        try:
            a, b = self.counts, other.counts
        except AttributeError:
            return NotImplemented
        return _interned(
            (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])
        )

    def __or__(self, other: Goods) -> Goods:
        """Multiset union: of each good, as many as the larger of the two has."""
        if not isinstance(other, Goods):
            return NotImplemented
        pairs = zip(self.counts, other.counts, strict=True)
        return _interned(tuple(max(x, y) for x, y in pairs))

    def __sub__(self, other: Goods) -> Goods:
        """Multiset difference: what is left of these after taking ``other`` away."""
        try:
            a, b = self.counts, other.counts
        except AttributeError:
            return NotImplemented
        return _interned(
            (
                a[0] - b[0] if a[0] > b[0] else 0,
                a[1] - b[1] if a[1] > b[1] else 0,
                a[2] - b[2] if a[2] > b[2] else 0,
                a[3] - b[3] if a[3] > b[3] else 0,
                a[4] - b[4] if a[4] > b[4] else 0,
                a[5] - b[5] if a[5] > b[5] else 0,
            )
        )

    def __le__(self, other: Goods) -> bool:
        """Whether every good here is also in ``other`` (sub-multiset)."""
        try:
            a, b = self.counts, other.counts
        except AttributeError:
            return NotImplemented
        return (
            a[0] <= b[0]
            and a[1] <= b[1]
            and a[2] <= b[2]
            and a[3] <= b[3]
            and a[4] <= b[4]
            and a[5] <= b[5]
        )

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size != 0

    def __iter__(self) -> Iterator[Good]:
        for good in _ALL_GOODS:
            for _ in range(self.counts[good]):
                yield good

    def __str__(self) -> str:
        return "".join(GOOD_CODES[good] * self.counts[good] for good in _ALL_GOODS) or "-"

    def __repr__(self) -> str:
        return f"Goods.parse({str(self)!r})"

    def __copy__(self) -> Goods:
        return self

    def __deepcopy__(self, memo: object) -> Goods:
        # A value: a copy would be equal in every way, so share it (and do
        # not walk the memo of neighbouring goods).
        return self


# Goods values repeat endlessly in a game (every village and cart holds a few),
# so equal values share one object: states stay small and look-ups hit the
# identity fast path. Only goods a game can hold are shared (at most 8 of a
# kind), and only up to a cap, so the table stays small whatever callers do;
# equality never relies on it. Text read from outside is never shared (see
# Goods.parse): refused input leaves nothing behind.
_INTERNED: dict[tuple[int, ...], Goods] = {}
# The same goods by the code of their counts (Goods._code), so that one more
# or one fewer of a kind is found by adding to an int.
_BY_CODE: dict[int, Goods] = {}


def _interned(counts: tuple[int, ...]) -> Goods:
    goods = _INTERNED.get(counts)
    if goods is None:
        goods = Goods(counts)  # type: ignore[arg-type]
        if len(_INTERNED) < _INTERN_LIMIT and max(counts) <= GOODS_PER_KIND:
            _INTERNED[counts] = goods
            _BY_CODE[goods._code] = goods
    return goods


EMPTY = _interned(_EMPTY_COUNTS)


kinds_of: Callable[[Goods], tuple[Good, ...]] = operator.attrgetter("_kinds")
"""``goods.kinds()`` as a function of the goods: the distinct goods present,
in :class:`Good` order. Listing the legal moves asks it for every village a
move reaches; as a C call it builds no Python frame."""
