"""A face-up pile that grows by whole handfuls of cards until it is shuffled.

The discard pile gets a few cards at the end of every turn. Copying the whole
pile each time would make every game state carry its own copy; a chain of
handfuls lets each new pile share everything that lies below.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

import attrs

from troedler.core.cards import Card

__all__ = ["Pile"]


# No weak-reference slot (8 bytes): one pile is built at every end of turn.
@attrs.frozen(eq=False, repr=False, weakref_slot=False)
class Pile:
    """A stack of cards, bottom to top, compared by the cards it holds.

    >>> from troedler.core.cards import parse_card
    >>> pile = Pile.of([parse_card("trail")]).add([parse_card("feed")])
    >>> [str(card) for card in pile], str(pile.top), len(pile)
    (['trail', 'feed'], 'feed', 2)
    """

    handful: tuple[Card, ...] = ()
    """The cards put on last, bottom to top."""
    below: Pile | None = None
    """What lay there before them."""
    size: int = 0

    @classmethod
    def of(cls, cards: Iterable[Card]) -> Pile:
        """A pile of ``cards``, bottom to top."""
        return _EMPTY.add(cards)

    def add(self, cards: Iterable[Card]) -> Pile:
        """This pile with ``cards`` put on top, in order."""
        handful = tuple(cards)
        if not handful:
            return self
        return Pile(handful, self if self.size else None, self.size + len(handful))

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card, bottom to top."""
        handfuls = []
        pile: Pile | None = self
        while pile is not None:
            handfuls.append(pile.handful)
            pile = pile.below
        return tuple(itertools.chain.from_iterable(reversed(handfuls)))

    @property
    def top(self) -> Card | None:
        """The visible top card, or None for an empty pile."""
        return self.handful[-1] if self.handful else None

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pile):
            return NotImplemented
        return self is other or (self.size == other.size and self.cards == other.cards)

    def __hash__(self) -> int:
        return hash(self.cards)

    def __repr__(self) -> str:
        return f"Pile.of({list(self.cards)!r})"


_EMPTY = Pile()
