"""A fixed integer id for every outcome chance can give, as OpenSpiel's chance actions.

OpenSpiel numbers the outcomes of a chance node like a player's actions,
from 0 up to ``max_chance_outcomes - 1``, in a space of their own. Chance
in troedler (see :mod:`troedler.core.chance`) turns up either a good (set-up,
S4) or a card (the set-up discard pile, S5, and forming the dealer piles,
R2), so the ids are:

========  =========================================================
ids       outcome
========  =========================================================
0 - 5     a good, in :class:`~troedler.Good` order: A B C U P V
6 - 39    a card type, in hand order: the four route cards, extra
          good, special feed, then the 28 goods requests
          (:func:`troedler.encoding.action_ids.card_types`)
========  =========================================================

The card ids follow the card catalogue, so the range above is that of
troedler's own cards. Every outcome of a chance node has a distinct id,
and the ids of a node come out ascending.
"""

from __future__ import annotations

import functools
import operator

from troedler.core.cards import CARD_TYPES, Card, CardCatalogue, default_cards
from troedler.core.chance import ChanceOutcome, chance_outcomes
from troedler.core.datafile import describe
from troedler.core.errors import IllegalMoveError
from troedler.core.goods import Good
from troedler.core.state import GameState
from troedler.encoding.action_ids import card_types

__all__ = ["ChanceIds", "chance_ids"]

_GOODS = tuple(Good)


class ChanceIds:
    """The chance outcome ids of one card catalogue; build it with :func:`chance_ids`."""

    card_types: tuple[Card, ...]
    """The card types, in id order from ``len(Good)``."""

    def __init__(self, cards: CardCatalogue) -> None:
        self.card_types = card_types(cards)
        self._outcomes: tuple[ChanceOutcome, ...] = (*_GOODS, *self.card_types)
        self._card_ids = {card.sort_key: len(_GOODS) + i for i, card in enumerate(self.card_types)}
        self._names = tuple(
            f"good {outcome.code}" if isinstance(outcome, Good) else f"card {outcome}"
            for outcome in self._outcomes
        )

    @property
    def num_outcomes(self) -> int:
        """How many ids there are: OpenSpiel's ``max_chance_outcomes``."""
        return len(self._outcomes)

    def __repr__(self) -> str:
        return f"<ChanceIds: {self.num_outcomes} outcomes>"

    def outcome_id(self, outcome: ChanceOutcome) -> int:
        """The id of a good or a card; :class:`IllegalMoveError` for anything else."""
        if type(outcome) is Good:
            return int(outcome)
        if type(outcome) in CARD_TYPES:
            found = self._card_ids.get(outcome.sort_key)  # type: ignore[union-attr]
            if found is not None:
                return found
        raise IllegalMoveError("R2", f"chance cannot turn up {describe(outcome)}")

    def outcome(self, outcome_id: int) -> ChanceOutcome:
        """The good or card an id stands for; :class:`IllegalMoveError` if it is not an id."""
        return self._outcomes[self._check(outcome_id)]

    def name(self, outcome_id: int) -> str:
        """The id's text: ``good A`` or ``card bridge``, unique among the ids."""
        return self._names[self._check(outcome_id)]

    def outcomes(self, state: GameState) -> list[tuple[int, float]]:
        """The ids and probabilities of the outcomes of a chance node, ids ascending.

        :class:`IllegalMoveError` if ``state`` is not a chance node.
        """
        weighted = chance_outcomes(state)
        total = sum(weight for _outcome, weight in weighted)
        found = [(self.outcome_id(outcome), weight / total) for outcome, weight in weighted]
        found.sort(key=operator.itemgetter(0))
        return found

    def _check(self, outcome_id: object) -> int:
        if type(outcome_id) is int and 0 <= outcome_id < len(self._outcomes):
            return outcome_id
        try:
            checked = operator.index(outcome_id)  # type: ignore[arg-type]
        except TypeError:
            checked = -1
        if isinstance(outcome_id, bool) or not 0 <= checked < len(self._outcomes):
            raise IllegalMoveError(
                "R2",
                f"a chance outcome id is an int 0 to {len(self._outcomes) - 1}, "
                f"not {describe(outcome_id)}",
            )
        return checked


@functools.lru_cache(maxsize=8)
def _chance_ids(cards: CardCatalogue) -> ChanceIds:
    return ChanceIds(cards)


def chance_ids(cards: CardCatalogue | None = None) -> ChanceIds:
    """The chance outcome ids of ``cards`` (default: troedler's own), built once.

    >>> ids = chance_ids()
    >>> ids.num_outcomes, ids.name(0), ids.name(7)
    (40, 'good A', 'card bridge')
    """
    return _chance_ids(default_cards() if cards is None else cards)
