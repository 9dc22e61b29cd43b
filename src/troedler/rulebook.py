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
from typing import TYPE_CHECKING

from troedler.cards import Card, RequestCard, SpecialFeedCard
from troedler.goods import GOODS_PER_KIND, Good, Goods

if TYPE_CHECKING:  # rules.py reads its per-player-count values here
    from troedler.rules import Rules

__all__ = [
    "HAND_LIMIT",
    "MAX_CARDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PILE_SIZE",
    "PLAYER_COUNTS",
    "SETUP_SHUFFLES",
    "SHUFFLES_PER_ROUND",
    "START_HAND",
    "TOTAL_GOODS",
    "TWO_PLAYER_DAMAGE_MARGIN",
    "VALUE_PILE_TYPES",
    "dealer_discards_first",
    "discard_candidates",
    "end_threshold",
    "ends_game",
    "goes_to_value_pile",
    "goods_per_kind",
    "goods_problem",
    "most_carried",
    "most_shuffles",
    "next_to_take",
    "pile_count",
    "pile_takes",
    "round_cards",
    "setup_discards",
    "setup_pile_hidden",
    "setup_portion",
    "taker",
]

# --- C: the components --------------------------------------------------------

TOTAL_GOODS = GOODS_PER_KIND * len(Good)
"""Goods in the game: 8 of each of the six kinds (C1)."""


MAX_CARDS = 200
"""A bound on any count or list of cards: more than the game's 110 (C2), so
that readers and checks refuse a list no game can hold after bounded work."""


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

PLAYER_COUNTS = (2, 3, 4)
"""How many may play (S1)."""
MIN_PLAYERS = PLAYER_COUNTS[0]
MAX_PLAYERS = PLAYER_COUNTS[-1]

_SETUP_DISCARDS = (7, 9, 9)


def setup_discards(num_players: int) -> int:
    """Goods requests, and as many special feed, that the set-up pile takes
    for ``num_players`` (S5): 7 each with two players, else 9."""
    return _SETUP_DISCARDS[num_players - MIN_PLAYERS]


def setup_portion(rules: Rules) -> int:
    """Cards in the set-up pile: its goods requests and its special feed (S5)."""
    return rules.setup_requests + rules.setup_feed


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
    portion = setup_portion(rules)
    if shuffles != SETUP_SHUFFLES or discards < portion:
        return 0
    return portion


# --- R: the round ---------------------------------------------------------------

PILE_SIZE = 4
"""Cards in a full dealer pile (R2)."""


def pile_count(num_players: int) -> int:
    """How many dealer piles a round forms (R2): one more than the players."""
    return num_players + 1


def round_cards(num_players: int) -> int:
    """Cards turned up to form a round's dealer piles when none runs short (R2)."""
    return PILE_SIZE * pile_count(num_players)


SHUFFLES_PER_ROUND = 2
"""Most shuffles of one round (R3): the discard pile at its start, and again
while forming if the new pile runs out too."""


def most_shuffles(round_number: int) -> int:
    """Most shuffles a game has made by round ``round_number``: the set-up's,
    then at most :data:`SHUFFLES_PER_ROUND` a round (R3)."""
    return SETUP_SHUFFLES + SHUFFLES_PER_ROUND * round_number


def most_carried(rules: Rules) -> int:
    """Most cards a hand holds between turns: the hand limit (T7), or the
    starting hand (S2) where that is more."""
    return max(START_HAND, rules.hand_limit)


def dealer_discards_first(rules: Rules, piles_gone: int) -> bool:
    """Whether the dealer now puts a dealer pile onto the discard pile: in the
    two-player game, before any pile is gone (R4)."""
    return rules.two_player_rules and not piles_gone


def taker(dealer: int, num_players: int, takes: int) -> int:
    """The seat that takes a dealer pile once ``takes`` players have taken one:
    from the dealer's left, clockwise (R4)."""
    return (dealer + 1 + takes) % num_players


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
    if dealer_discards_first(rules, piles_gone):
        return dealer
    takes = pile_takes(rules, piles_gone)
    if takes >= rules.num_players:
        return None
    return taker(dealer, rules.num_players, takes)


# --- T: the turn ------------------------------------------------------------------

VALUE_PILE_TYPES = (SpecialFeedCard, RequestCard)
"""The cards that go onto a value pile when a turn ends (T6): played special
feed and fulfilled requests; routes and extra goods go onto the discard pile."""


def goes_to_value_pile(card: Card) -> bool:
    """Whether ``card``, played, goes onto its player's value pile (T6)."""
    return type(card) is SpecialFeedCard or type(card) is RequestCard


HAND_LIMIT = 4
"""Cards a player may keep after their turn (T7); ``Rules.hand_limit`` may change it."""


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


# --- E: the end and the scoring ----------------------------------------------------

_END_THRESHOLDS = (7, 6, 5)


def end_threshold(num_players: int) -> int:
    """Fulfilled requests on one value pile that end the game for
    ``num_players`` (E1): 7, 6 or 5 for 2, 3 or 4 players."""
    return _END_THRESHOLDS[num_players - MIN_PLAYERS]


def ends_game(rules: Rules, fulfilled: Iterable[int]) -> bool:
    """Whether value piles with ``fulfilled`` requests each end the game at
    the end of the round (E1): one of them reaches the threshold."""
    threshold = rules.end_threshold
    return any(count >= threshold for count in fulfilled)


TWO_PLAYER_DAMAGE_MARGIN = 3
"""With two players, total damage needs this much more damage than the other (E4)."""
