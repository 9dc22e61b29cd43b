"""The facts of the rules, each stated once, in the order of the rule ids.

The actions (:mod:`troedler.actions`), the checks of a position
(:mod:`troedler.invariants`), the views (:mod:`troedler.views`) and the
readers (:mod:`troedler.serialization`) all ask these functions and
constants, so that a fact of the game is written down in one place only. The
card types are :data:`troedler.cards.CARD_TYPES`; the goods of each kind are
:data:`troedler.goods.GOODS_PER_KIND`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from troedler.cards import Card, SpecialFeedCard
from troedler.goods import GOODS_PER_KIND, Good, Goods
from troedler.rules import Rules

__all__ = [
    "PILE_SIZE",
    "SETUP_SHUFFLES",
    "START_HAND",
    "TOTAL_GOODS",
    "discard_candidates",
    "goods_per_kind",
    "goods_problem",
    "most_carried",
    "next_to_take",
    "pile_count",
    "pile_takes",
    "setup_pile_hidden",
]

# --- C: the components --------------------------------------------------------

TOTAL_GOODS = GOODS_PER_KIND * len(Good)
"""Goods in the game: 8 of each of the six kinds (C1)."""


def goods_per_kind(goods: Iterable[Goods]) -> list[int]:
    """How many of each good, in :class:`~troedler.Good` order, ``goods`` hold together."""
    counts = [0] * len(Good)
    for held in goods:
        for good, number in enumerate(held.counts):
            counts[good] += number
    return counts


def goods_problem(per_kind: Sequence[int], in_bag: bool) -> str | None:
    """Why villages and players holding ``per_kind`` goods of each kind break
    conservation (C1), or None. ``in_bag``: chance is still dealing them at
    set-up (S4), so some may still wait in the bag."""
    for good, count in zip(Good, per_kind, strict=True):
        if count > GOODS_PER_KIND or (count < GOODS_PER_KIND and not in_bag):
            return (
                f"villages and players hold {count} {good.name.lower()}s, not {GOODS_PER_KIND} (C1)"
            )
    return None


# --- S: the set-up ------------------------------------------------------------

START_HAND = 3
"""Cards in each starting set, the hand every player begins with (S2)."""

SETUP_SHUFFLES = 4
"""Shuffles made by the set-up (goods, chosen requests, discard pile, game-round pile)."""


def setup_pile_hidden(rules: Rules, shuffles: int, discards: int) -> int:
    """How many cards at the bottom of a discard pile of ``discards`` cards are
    still the set-up pile (S5), which everyone saw only from above (I2).

    It lies there until the first reshuffle; a position built by hand may
    lack it, and then nothing is hidden.
    """
    portion = rules.setup_requests + rules.setup_feed
    if shuffles != SETUP_SHUFFLES or discards < portion:
        return 0
    return portion


# --- R: the round ---------------------------------------------------------------

PILE_SIZE = 4
"""Cards in a full dealer pile (R2)."""


def pile_count(num_players: int) -> int:
    """How many dealer piles a round forms (R2): one more than the players."""
    return num_players + 1


def most_carried(rules: Rules) -> int:
    """Most cards a hand holds between turns: the hand limit (T7), or the
    starting hand (S2) where that is more."""
    return max(START_HAND, rules.hand_limit)


def pile_takes(rules: Rules, piles_gone: int) -> int:
    """How many players have taken a dealer pile once ``piles_gone`` piles are
    gone (R4): in the two-player game the first pile to go is the one the
    dealer discards."""
    if rules.two_player_rules and piles_gone:
        return piles_gone - 1
    return piles_gone


def next_to_take(rules: Rules, dealer: int, piles_gone: int) -> int | None:
    """The seat that takes the next dealer pile once ``piles_gone`` are gone,
    or None once every player has taken one (R4).

    Players take in turn from the dealer's left; in the two-player game the
    dealer first discards one of the three piles.
    """
    if rules.two_player_rules and piles_gone == 0:
        return dealer
    takes = pile_takes(rules, piles_gone)
    if takes >= rules.num_players:
        return None
    return (dealer + 1 + takes) % rules.num_players


# --- T: the turn ------------------------------------------------------------------


def discard_candidates(cards: Iterable[Card], last: Card | None) -> list[Card]:
    """The cards of ``cards`` that may go next when discarding down to the hand
    limit, in their order (T7).

    Special feed is never discarded, and discards go in hand order: after
    ``last``, the card discarded last, only cards at or after it in hand
    order may follow. Whether enough cards are left for the discards still
    due is :func:`troedler.actions.discard_options`' part.
    """
    floor = -1 if last is None else last.sort_key
    return [card for card in cards if card.sort_key >= floor and type(card) is not SpecialFeedCard]
