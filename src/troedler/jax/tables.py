"""The fixed tables of one game: board, cards and rules as numpy arrays.

The JAX engine never looks at a :class:`~troedler.Board` or a
:class:`~troedler.CardCatalogue` while it runs: everything it needs is read
from them once, here, into arrays of fixed shape that jit-compiled code
takes as constants. Card *types* are counted in the order of
:func:`troedler.encoding.action_ids.card_types` (routes, extra good, special
feed, then the goods requests in hand order), the same order as the
observation tensor's; villages in board order; goods in
:class:`~troedler.Good` order.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from troedler.core.board import ANY_KIND, Board, RouteKind
from troedler.core.cards import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
)
from troedler.core.chance import seed_answers
from troedler.core.errors import ConfigurationError, quote
from troedler.core.goods import GOOD_KINDS, Good
from troedler.core.moves import DiscardCard, PlayFeedMove, PlayRequest, PlayRoute
from troedler.core.rulebook import (
    PILE_SIZE,
    START_HAND,
    Rules,
    dealer_discards_first,
    discard_options,
    goes_to_value_pile,
    most_carried,
    next_to_take,
    pile_count,
    round_cards,
    setup_portion,
    starting_sets,
)
from troedler.encoding.action_ids import action_layout, card_types
from troedler.encoding.tensors import tensor_layout
from troedler.seat.observation import check_recall

__all__ = ["GOODS", "Game", "Tables", "tables"]

GOODS = GOOD_KINDS
"""The kinds of goods: the width of every goods row."""

"""Kinds of goods (C1): the width of every goods array."""

Int = npt.NDArray[np.int32]
Bool = npt.NDArray[np.bool_]


def _check_recall(instance: object, attribute: object, recall: str) -> None:
    check_recall(recall)


def _check_max_rounds(instance: object, attribute: object, max_rounds: int | None) -> None:
    if max_rounds is not None and (type(max_rounds) is not int or max_rounds < 1):
        raise ConfigurationError(
            f"max_rounds is None or a whole number from 1, not {quote(max_rounds)}"
        )


@attrs.frozen
class Game:
    """What fixes the shapes and the rules of a JAX game: hashable, so that
    jit-compiled functions can be kept per game."""

    rules: Rules
    board: Board
    cards: CardCatalogue
    recall: str = attrs.field(validator=_check_recall)
    """What observations remember: ``"table"`` or ``"perfect"`` (I3)."""
    max_rounds: int | None = attrs.field(validator=_check_max_rounds)
    """Round after which a game still running is truncated; None: never."""


@attrs.frozen(eq=False)
class Tables:
    """The arrays of one :class:`Game` (see the module docstring)."""

    game: Game
    n: int
    """Players."""
    villages: int
    types: int
    """Card types."""
    piles: int
    """Dealer piles a round forms: players + 1 (R2)."""
    round_cards: int
    """Cards turned up to form a round's dealer piles when none runs short (R2)."""
    setup_portion: int
    """Cards in the set-up pile: its goods requests and its special feed (S5)."""
    next_taker: Int
    """[players, piles + 1]: the seat that takes the next dealer pile, by
    dealer and piles gone; -1 once every player has taken one (R4)."""
    dealer_discards: Bool
    """[piles + 1]: whether the dealer discards a dealer pile first, by piles gone (R4)."""
    value_pile_from: int
    """The first card type that goes onto a value pile when played (T6): the
    types from it on do, those before it go onto the discard pile."""
    discardable: Bool
    """[types]: the card types that may be discarded down to the hand limit (T7)."""
    extra: int
    """The card type of the extra good (+1)."""
    feed: int
    """The card type of special feed."""
    is_request: Bool
    """[types]: the goods requests, whose number on a value pile ends the game (E1)."""
    take_actions: int
    discard_pile_actions: int
    """Action ids of the take-pile and discard-pile sections: one per dealer
    pile of the largest game, and of the two-player game (R2, R4)."""
    cards_in_play: int
    """Every card of the game: the size of the face-down and discard pile arrays."""
    max_hand: int
    """The most cards a hand can hold: the most carried between rounds plus a pile."""
    max_request: int
    """The most goods a goods request shows."""
    num_actions: int
    observation_size: int
    card_list: tuple[Card, ...]
    """The card of each type."""
    request_goods: Int
    """[types, 6]: the goods a request type shows (0 for other cards)."""
    request_points: Int
    """[types]: a request type's points (0 for other cards)."""
    adjacent: Bool
    """[5, villages, villages]: a route of kind k (k = 4: any kind) joins the two."""
    numbers: Int
    """[villages]: the goods each village gets at set-up (S4)."""
    starts: Int
    """[players]: each seat's start village (S2)."""
    start_hands: Int
    """[players, types]: each seat's starting set (S2, C3)."""
    route_cards: Int
    """The deck's route cards, as card types."""
    request_cards: Int
    """The deck's goods requests, as card types."""
    section_starts: Int
    """The first action id of each section of the action layout."""
    route_kind: Int
    route_card: Int
    route_to: Int
    route_take: Int
    """Per route action: kind, the card type played, village reached, good taken (-1: none)."""
    feed_to: Int
    feed_take: Int
    """Per feed-move action: village reached, good taken (-1: none)."""
    deliver_type: Int
    deliver_goods: Int
    deliver_replaced: Int
    """Per delivery action: request type, goods put down [6], goods replaced (T5c)."""
    discard_type: Int
    """Per discard-card action: the card type discarded (T7)."""


def _array(values: object, dtype: type = np.int32) -> Any:
    array: Any = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


@functools.lru_cache(maxsize=16)
def tables(game: Game) -> Tables:
    """The tables of ``game``, built once per game."""
    rules, board, cards = game.rules, game.board, game.cards
    if not seed_answers(rules):
        raise ConfigurationError(
            "rules.explicit_chance: the JAX engine draws every chance outcome from its key"
        )
    n = rules.num_players
    types = card_types(cards)
    index = {card.sort_key: i for i, card in enumerate(types)}
    t, v = len(types), len(board.villages)
    layout = action_layout(board, cards)
    request_goods = np.zeros((t, GOODS), np.int32)
    request_points = np.zeros(t, np.int32)
    for i, card in enumerate(types):
        if isinstance(card, RequestCard):
            request_goods[i] = card.goods.counts
            request_points[i] = card.points
    adjacent = np.zeros((ANY_KIND + 1, v, v), bool)
    for here in range(v):
        for kind in (*RouteKind, None):
            for there in board.targets(here, kind):
                adjacent[ANY_KIND if kind is None else kind, here, there] = True
    seats = starting_sets(board, cards, n)
    starts = [board.index(seat.village) for seat in seats]
    start_hands = np.zeros((n, t), np.int32)
    for row, seat in enumerate(seats):
        for card in seat.cards:
            start_hands[row, index[card.sort_key]] += 1

    def ids(name: str) -> range:
        section = layout.section(name)
        return range(section.start, section.stop)

    route_moves = [m for i in ids("route") if isinstance(m := layout.move(i), PlayRoute)]
    feed_moves = [m for i in ids("feed move") if isinstance(m := layout.move(i), PlayFeedMove)]
    deliver_moves = [m for i in ids("deliver") if isinstance(m := layout.move(i), PlayRequest)]
    discard_moves = [m for i in ids("discard card") if isinstance(m := layout.move(i), DiscardCard)]
    # Each section holds only its own kind of move (troedler.encoding.action_ids).
    assert len(route_moves) + len(feed_moves) + len(deliver_moves) + len(discard_moves) == sum(
        len(ids(name)) for name in ("route", "feed move", "deliver", "discard card")
    )

    def take(good: Good | None) -> int:
        return -1 if good is None else int(good)

    goes_to_value = [goes_to_value_pile(card) for card in types]
    value_pile_from = goes_to_value.index(True)
    # Card types are in hand order: the value pile's (special feed, then the
    # goods requests) come last, so one comparison tells them apart.
    assert all(goes_to_value[value_pile_from:]), "value pile types are not the last"
    piles = pile_count(n)

    def next_seat(dealer: int, gone: int) -> int:
        seat = next_to_take(rules, dealer, gone)
        return -1 if seat is None else seat

    next_taker = [[next_seat(dealer, gone) for gone in range(piles + 1)] for dealer in range(n)]

    deliver_goods = [m.delivered.counts for m in deliver_moves]
    deliver_replaced = [m.feed_cost for m in deliver_moves]
    carried = most_carried(rules)
    return Tables(
        game=game,
        n=n,
        villages=v,
        types=t,
        piles=piles,
        round_cards=round_cards(n),
        setup_portion=setup_portion(rules),
        next_taker=_array(next_taker),
        dealer_discards=_array(
            [dealer_discards_first(rules, gone) for gone in range(piles + 1)], np.bool_
        ),
        value_pile_from=value_pile_from,
        discardable=_array([bool(discard_options((card,), 1, None)) for card in types], np.bool_),
        extra=index[EXTRA_GOOD.sort_key],
        feed=index[SPECIAL_FEED.sort_key],
        is_request=_array([isinstance(card, RequestCard) for card in types], np.bool_),
        take_actions=len(ids("take pile")),
        discard_pile_actions=len(ids("discard pile")),
        cards_in_play=len(cards.routes)
        + len(cards.requests)
        + cards.special_feed
        + cards.extra_goods
        + START_HAND * n,
        max_hand=carried + PILE_SIZE,
        max_request=max(len(card.goods) for card in types if isinstance(card, RequestCard)),
        num_actions=layout.num_actions,
        observation_size=tensor_layout(board, cards, n).size,
        card_list=types,
        request_goods=_array(request_goods),
        request_points=_array(request_points),
        adjacent=_array(adjacent, np.bool_),
        numbers=_array([village.number for village in board.villages]),
        starts=_array(starts),
        start_hands=_array(start_hands),
        route_cards=_array([index[card.sort_key] for card in cards.routes]),
        request_cards=_array([index[card.sort_key] for card in cards.requests]),
        section_starts=_array([section.start for section in layout.sections]),
        route_kind=_array([int(m.kind) for m in route_moves]),
        route_card=_array([index[m.card.sort_key] for m in route_moves]),
        route_to=_array([board.index(m.to) for m in route_moves]),
        route_take=_array([take(m.take) for m in route_moves]),
        feed_to=_array([board.index(m.to) for m in feed_moves]),
        feed_take=_array([take(m.take) for m in feed_moves]),
        deliver_type=_array([index[m.card.sort_key] for m in deliver_moves]),
        deliver_goods=_array(deliver_goods),
        deliver_replaced=_array(deliver_replaced),
        discard_type=_array([index[m.card.sort_key] for m in discard_moves]),
    )
