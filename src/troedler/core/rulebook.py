"""The facts of the rules, each stated once, in the order of the rule ids.

The formulas among them (the hidden part of the set-up pile, a reshuffle,
the discards owed, the end of the game, damage and total damage, points
and standing, the piles of a seeded set-up) are plain arithmetic (or
slicing) on their numbers: they give the same answer for Python integers
and, element by element, for arrays, so that the vectorized engine
(:mod:`troedler.jax`) computes each rule with the very same function. Their
conditions combine with ``&`` and ``|``, never ``and``/``or``, and
:func:`at_least_zero` stands for ``max(x, 0)``.

The actions (:mod:`troedler.core.actions`), the checks of a position
(:mod:`troedler.core.invariants`), the views (:mod:`troedler.seat.observation`) and the
readers (:mod:`troedler.io.state_json`) all ask these functions and
constants, so that a fact of the game is written down in one place only. The
card types are :data:`troedler.core.cards.CARD_TYPES`; the goods of each kind are
:data:`troedler.core.goods.GOODS_PER_KIND`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from troedler.core.board import Board
from troedler.core.cards import (
    NUM_REQUESTS,
    NUM_SPECIAL_FEED,
    NUM_STARTING_SETS,
    SPECIAL_FEED,
    UNKNOWN,
    Card,
    CardCatalogue,
    RequestCard,
    SpecialFeedCard,
    StartingSet,
    hand_count,
)
from troedler.core.errors import ConfigurationError, quote
from troedler.core.goods import GOOD_KINDS, GOODS_PER_KIND, TOTAL_GOODS, Good, Goods

__all__ = [
    "HAND_LIMIT",
    "MAX_CARDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPTION_RANGES",
    "PILE_SIZE",
    "PLAYER_COUNTS",
    "SETUP_SHUFFLES",
    "SHUFFLES_PER_ROUND",
    "START_HAND",
    "TWO_PLAYER_DAMAGE_MARGIN",
    "VALUE_PILE_TYPES",
    "Rules",
    "dealer_discards_first",
    "discard_options",
    "discards_owed",
    "end_threshold",
    "ends_game",
    "goes_to_value_pile",
    "goods_per_kind",
    "goods_problem",
    "hand_limit_discards",
    "most_carried",
    "most_shuffles",
    "next_to_take",
    "pile_count",
    "pile_takes",
    "round_cards",
    "setup_discards",
    "setup_pile_hidden",
    "setup_pile_left",
    "setup_piles",
    "setup_portion",
    "setup_problem",
    "standing",
    "starting_sets",
    "taker",
    "total_points",
    "value_pile_parts",
]

# --- C: the components --------------------------------------------------------

MAX_CARDS = 200
"""A bound on any count or list of cards: more than the game's 110 (C2), so
that readers and checks refuse a list no game can hold after bounded work."""


def goods_per_kind(goods: Iterable[Goods]) -> list[int]:
    """How many of each good, in :class:`~troedler.Good` order, ``goods`` hold together."""
    counts = [0] * GOOD_KINDS
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


def setup_piles(
    rules: Rules,
    cards: CardCatalogue,
    requests: Any,
    routes: Any,
    feed: Any,
    extra: Any,
    repeat: Callable[[Any, int], Any],
    join: Callable[..., Any],
) -> tuple[Any, Any]:
    """The set-up pile before its shuffle, and the rest of the deck in the
    order a seeded set-up has always listed it (S5, S6), from the goods
    ``requests`` in the order their shuffle gave them.

    The set-up pile takes the first ``rules.setup_requests`` requests and
    ``rules.setup_feed`` special feed; the rest of the deck is the route
    cards ``routes``, the other requests, the other special feed and the
    extra goods. ``repeat(card, n)`` and ``join(*piles)`` build the piles,
    so that tuples of cards and arrays of card types are laid alike.
    """
    chosen, rest = requests[: rules.setup_requests], requests[rules.setup_requests :]
    setup_pile = join(chosen, repeat(feed, rules.setup_feed))
    deck = join(
        routes,
        rest,
        repeat(feed, cards.special_feed - rules.setup_feed),
        repeat(extra, cards.extra_goods),
    )
    return setup_pile, deck


def setup_problem(rules: Rules, cards: CardCatalogue) -> str | None:
    """Why the set-up pile of ``rules`` cannot be laid from ``cards`` (S5): it
    takes more goods requests or special feed than they hold; None if it can."""
    if rules.setup_requests > len(cards.requests) or rules.setup_feed > cards.special_feed:
        return (
            f"S5: the set-up takes {rules.setup_requests} goods requests and "
            f"{rules.setup_feed} special feed; the cards have {len(cards.requests)} and "
            f"{cards.special_feed}"
        )
    return None


def setup_pile_left(rules: Rules, laid: Iterable[Card]) -> tuple[int, int] | None:
    """The special feed and the goods requests that the set-up pile still
    takes (S5) once ``laid`` lies in it, or None if ``laid`` holds another
    card, or more feed or more requests than the pile takes.

    ``laid`` is the pile's cards from the bottom; in a seat's view an
    :data:`~troedler.core.cards.UNKNOWN` card is one of those still taken.
    """
    feed = rules.setup_feed
    requests = rules.setup_requests
    for card in laid:
        if type(card) is SpecialFeedCard:
            feed -= 1
        elif type(card) is RequestCard:
            requests -= 1
        elif card is not UNKNOWN:
            return None
    if feed < 0 or requests < 0:
        return None
    return feed, requests


def starting_sets(board: Board, cards: CardCatalogue, num_players: int) -> tuple[StartingSet, ...]:
    """Each seat's starting set (C3, S2): the one marked with its start
    village, whose route card leaves that village;
    :class:`~troedler.ConfigurationError` naming C3 where the cards have none
    or its route does not leave the village."""
    found = []
    for seat in range(num_players):
        village = board.start_village(seat, num_players)
        try:
            starting_set = cards.starting_set(village)
        except KeyError:
            raise ConfigurationError(
                f"C3: the cards have no starting set for start village {village}"
            ) from None
        if starting_set.route not in board.route_kinds(village):
            kind = starting_set.route.code
            raise ConfigurationError(
                f"C3: the starting set of {village} has a {kind} card, "
                f"but no {kind} leaves {village}"
            )
        found.append(starting_set)
    return tuple(found)


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
    return portion * ((shuffles == SETUP_SHUFFLES) & (discards >= portion))


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


def reshuffle_due(laid: int, left: int, discarded: int, need: int, mid_forming: bool) -> bool:
    """Whether the discard pile becomes the game-round pile (R3) when piles are
    formed: ``left`` cards are left in the game-round pile after ``laid`` were
    laid of the ``need`` the piles take, and the discard pile holds
    ``discarded``. It does once the game-round pile is used up and the piles
    still take cards, if there are cards to take: at the start of forming,
    and while forming only if ``mid_forming`` (``Rules.reshuffle_mid_forming``)."""
    return (left == 0) & (discarded > 0) & (laid < need) & ((laid == 0) | mid_forming)


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


def value_pile_parts(cards: Iterable[Card]) -> tuple[int, tuple[RequestCard, ...]]:
    """The special feed used and the fulfilled goods requests among the cards
    of a value pile (T6), the requests in their order: the feed is the
    damage of E2, the requests the points of E5."""
    feed = 0
    requests: list[RequestCard] = []
    for card in cards:
        if type(card) is RequestCard:
            requests.append(card)
        elif type(card) is SpecialFeedCard:
            feed += 1
    return feed, tuple(requests)


HAND_LIMIT = 4
"""Cards a player may keep after their turn (T7); ``Rules.hand_limit`` may change it."""


def discards_owed(cards: int, feed: int, limit: int) -> tuple[int, int]:
    """What a hand of ``cards`` cards, ``feed`` of them special feed, owes at
    the end of a turn over a hand limit of ``limit`` (T7): how many cards
    other than special feed the player must discard, and how much special
    feed goes onto the value pile. Special feed is never discarded: feed
    beyond the limit goes to the value pile, and the rest of the hand then
    keeps as many cards as the limit allows."""
    overflow = at_least_zero(feed - limit)
    return at_least_zero(cards - limit - overflow), overflow


def hand_limit_discards(hand: Sequence[Card], limit: int) -> tuple[int, int]:
    """What the sorted ``hand`` owes when a turn ends with it, over a hand
    limit of ``limit`` (T7): :func:`discards_owed` of its cards and its
    special feed."""
    if len(hand) <= limit:
        return 0, 0
    return discards_owed(len(hand), hand_count(hand, SPECIAL_FEED), limit)


def discard_options(hand: Sequence[Card], due: int, last: Card | None) -> list[Card]:
    """The cards of the sorted ``hand`` that may be discarded next, each value
    once, in hand order, while ``due`` discards are due and ``last`` was
    discarded last (T7).

    Special feed is never discarded, and discards go in hand order: a card
    may go if it is not special feed, does not come before ``last``, and
    leaves enough such cards at or after it for the discards still due. So
    each choice of cards has one order, and the hand can make the discards
    due exactly when this list is not empty.
    """
    floor = -1 if last is None else last.sort_key
    candidates = [
        card for card in hand if card.sort_key >= floor and type(card) is not SpecialFeedCard
    ]
    options: list[Card] = []
    for card in candidates[: len(candidates) - due + 1]:
        if not options or card.sort_key != options[-1].sort_key:
            options.append(card)
    return options


# --- E: the end and the scoring ----------------------------------------------------

_END_THRESHOLDS = (7, 6, 5)


def at_least_zero(x: int) -> int:
    """``max(x, 0)``, for integers and arrays alike."""
    return (x + abs(x)) // 2


def end_threshold(num_players: int) -> int:
    """Fulfilled requests on one value pile that end the game for
    ``num_players`` (E1): 7, 6 or 5 for 2, 3 or 4 players."""
    return _END_THRESHOLDS[num_players - MIN_PLAYERS]


def ends_game(rules: Rules, most_fulfilled: int) -> bool:
    """Whether the game ends at the end of the round, where the value pile
    with the most fulfilled requests holds ``most_fulfilled`` (E1): it
    reaches the threshold."""
    return most_fulfilled >= rules.end_threshold


def total_points(request_points: int, goods_held: int) -> int:
    """A player's points (E5): the points of their fulfilled goods requests,
    plus one per good held, total damage or not."""
    return request_points + goods_held


def standing(points: int, goods_held: int) -> int:
    """Where a player without total damage finishes (E6), as one number:
    most points first, then fewest goods held (no one holds more than
    :data:`~troedler.core.goods.TOTAL_GOODS`). Equal numbers share the win."""
    return points * (TOTAL_GOODS + 1) - goods_held


def damage(feed_used: int, goods_held: int) -> int:
    """A player's damage (E2): the special feed used, plus half the goods
    held, rounded up."""
    return feed_used + (goods_held + 1) // 2


TWO_PLAYER_DAMAGE_MARGIN = 3
"""With two players, total damage needs this much more damage than the other (E4)."""


def totally_damaged(
    damage: int, highest: int, at_highest: int, other: int, two_players: bool
) -> bool:
    """Whether a player with ``damage`` suffers total damage (E3, E4), where
    ``highest`` is the highest damage at the table, ``at_highest`` how many
    players have it, and ``other`` the other player's damage in a game with
    the two-player rules: there by a margin of
    :data:`TWO_PLAYER_DAMAGE_MARGIN` or more (E4), else by being the only
    one with the highest damage (E3)."""
    if two_players:
        return damage - other >= TWO_PLAYER_DAMAGE_MARGIN
    return (damage == highest) & (at_highest == 1)


# --- The rules of one game: the player count and the options the rules leave open ---

MOST_FULFILLED = NUM_REQUESTS + NUM_STARTING_SETS
"""Most goods requests a value pile can hold: the game's 26 in the deck and
the 4 of the starting sets (C2); no end threshold above it can be reached."""
MOST_HAND_LIMIT = 20
"""The largest hand limit the rules accept: above it four hands would hold
nearly the whole deck."""

OPTION_RANGES = {
    "end_threshold": (1, MOST_FULFILLED),
    "hand_limit": (0, MOST_HAND_LIMIT),
    "setup_requests": (0, NUM_REQUESTS),
    "setup_feed": (0, NUM_SPECIAL_FEED),
}
"""The sane range of each numeric option: the set-up pile takes at most the
deck's goods requests and special feed (C2)."""


@attrs.frozen(cache_hash=True)
class Rules:
    """How a game is played; carried in every game state.

    Build it with :meth:`for_players`, which fills in the rulebook's values
    for a player count, and override single options by keyword:

    >>> Rules.for_players(3).end_threshold
    6
    >>> Rules.for_players(4, reshuffle_mid_forming=False).reshuffle_mid_forming
    False
    """

    num_players: int
    """2, 3 or 4 (S1)."""
    end_threshold: int
    """Fulfilled requests on one value pile that end the game at round end (E1)."""
    two_player_rules: bool
    """Dealer discards a pile before taking (R4) and total damage by a margin (E4)."""
    hand_limit: int = HAND_LIMIT
    """Cards a player may keep after their turn (T7); 0 to 20."""
    setup_requests: int = setup_discards(MAX_PLAYERS)
    """Goods requests shuffled into the set-up discard pile (S5)."""
    setup_feed: int = setup_discards(MAX_PLAYERS)
    """Special feed shuffled into the set-up discard pile (S5)."""
    reshuffle_mid_forming: bool = True
    """[decision R3] When the game-round pile runs out while piles are formed,
    shuffle the discard pile into a new one at once and go on (True), or leave
    the piles short and shuffle at the start of the next round (False)."""
    explicit_chance: bool = False
    """Chance as a player: the game stops at every good dealt at set-up and
    every card turned up from a face-down pile, and the caller picks the
    outcome (see :mod:`troedler.core.chance`). False: chance comes from the seed."""

    def __attrs_post_init__(self) -> None:
        _check_players(self.num_players)
        for name in _BOOLEAN_OPTIONS:
            value = getattr(self, name)
            if type(value) is not bool:
                raise ConfigurationError(f"rules.{name} must be True or False, not {quote(value)}")
        if self.two_player_rules and self.num_players != MIN_PLAYERS:
            raise ConfigurationError(f"R4: two-player rules need 2 players, not {self.num_players}")
        for name, (low, high) in OPTION_RANGES.items():
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise ConfigurationError(
                    f"rules.{name} must be {low} to {high}, not {quote(value)}"
                )

    @classmethod
    def for_players(cls, num_players: int, **options: Any) -> Rules:
        """The rulebook's rules for ``num_players``, with ``options`` changed."""
        _check_players(num_players)
        defaults: dict[str, Any] = {
            "num_players": num_players,
            "end_threshold": end_threshold(num_players),
            "two_player_rules": num_players == MIN_PLAYERS,
            "setup_requests": setup_discards(num_players),
            "setup_feed": setup_discards(num_players),
        }
        unknown = set(options) - set(attrs.fields_dict(cls))
        if unknown:
            raise ConfigurationError(f"unknown rules option {quote(sorted(map(str, unknown))[0])}")
        defaults.update(options)
        return cls(**defaults)


_BOOLEAN_OPTIONS = ("two_player_rules", "reshuffle_mid_forming", "explicit_chance")
"""The options that are True or False; the others are :data:`OPTION_RANGES`'."""


def _check_players(num_players: object) -> None:
    if type(num_players) is not int or num_players not in PLAYER_COUNTS:
        raise ConfigurationError(f"S1: 2, 3 or 4 players, not {quote(num_players)}")
