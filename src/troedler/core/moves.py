"""Moves: one small record per kind of decision, each with a short notation.

``str(move)`` is the move's notation and :func:`troedler.parse_move` reads it
back. Goods are written with their letters (A anvil, B bottle, C chair,
U cup, P pot, V vase); ``+V`` means "take a vase"::

    take 2                      take dealer pile 2 (piles count from 0)
    discard 1                   two players: the dealer discards dealer pile 1
    bridge Knockando +V         route card: cross a bridge to Knockando, take a vase
    feed Knockando              special feed: move to Knockando along any route
    extra +A                    extra good (+1): take an anvil where the cart is
    feed +A                     special feed: take an anvil where the cart is
    deliver AAA:6               fulfil the goods request AAA:6 with its own goods
    deliver AAA:6 with AAP      ... putting down a pot for one anvil (one feed)
    end                         end the turn
    discard ferry               over the hand limit: put a ferry card onto the discard pile
    discard AB:3                ... or a goods request, or ``discard extra``

Every move also says what it costs from the hand: :attr:`~PlayRoute.card`
is the card it plays or discards (None for taking or discarding a dealer
pile and for ending the turn), and :attr:`~PlayRoute.feed_cost` the special
feed it plays, each a point of damage at the end (E2). Both are the
engine's shared objects and numbers, read without building anything, so a
client shows a move's card and cost from the move itself.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import attrs

from troedler.core.board import Board, RouteKind
from troedler.core.cards import (
    CARD_TYPES,
    EXTRA_GOOD,
    ROUTE_CARDS,
    SPECIAL_FEED,
    Card,
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
)
from troedler.core.errors import ConfigurationError, quote
from troedler.core.goods import Good, Goods
from troedler.core.rulebook import MAX_PLAYERS, pile_count

__all__ = [
    "DiscardCard",
    "DiscardPile",
    "EndTurn",
    "Move",
    "PlayExtraGood",
    "PlayFeedExtraGood",
    "PlayFeedMove",
    "PlayRequest",
    "PlayRoute",
    "TakePile",
]


# Moves check the types of their fields when built, and nothing else: whether
# a move is legal is apply_move's question. A bool or a float is not a pile
# number, an int is not a good: look-alikes are refused, not converted, so
# that a move equal to a listed one is that move. The engine builds its
# moves once and reuses them, so the checks cost nothing a move.


def _bad(move: str, field: str, expected: str, value: object) -> ConfigurationError:
    return ConfigurationError(f"{move}.{field} must be {expected}, not {quote(value)}")


def _pile_number(instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    if type(value) is not int or value < 0:
        raise _bad(type(instance).__name__, attribute.name, "a pile number (an int)", value)


def _village(instance: object, attribute: attrs.Attribute[str], value: object) -> None:
    if type(value) is not str:
        raise _bad(type(instance).__name__, attribute.name, "a village name", value)


def _good(instance: object, attribute: attrs.Attribute[Good], value: object) -> None:
    if type(value) is not Good:
        raise _bad(type(instance).__name__, attribute.name, "a Good", value)


def _good_or_none(instance: object, attribute: attrs.Attribute[Good | None], value: object) -> None:
    if value is not None and type(value) is not Good:
        raise _bad(type(instance).__name__, attribute.name, "a Good or None", value)


def _take(good: Good | None) -> str:
    return "" if good is None else f" +{good.code}"


@attrs.frozen
class TakePile:
    """Take dealer pile ``pile`` into hand (R4)."""

    pile: int = attrs.field(validator=_pile_number)
    card: ClassVar[None] = None
    """No card of the hand: the pile's cards join it."""
    feed_cost: ClassVar[int] = 0
    """No special feed."""

    def __str__(self) -> str:
        return f"take {self.pile}"


@attrs.frozen
class DiscardPile:
    """Two players: the dealer puts dealer pile ``pile`` onto the discard pile (R4)."""

    pile: int = attrs.field(validator=_pile_number)
    card: ClassVar[None] = None
    """No card of the hand: a dealer pile is discarded."""
    feed_cost: ClassVar[int] = 0
    """No special feed."""

    def __str__(self) -> str:
        return f"discard {self.pile}"


@attrs.frozen
class PlayRoute:
    """Play a route card of ``kind`` to move to ``to``, taking ``take`` there (T2)."""

    kind: RouteKind = attrs.field()
    to: str = attrs.field(validator=_village)
    take: Good | None = attrs.field(default=None, validator=_good_or_none)
    card: RouteCard = attrs.field(init=False, eq=False, repr=False)
    """The route card of :attr:`kind` that the move plays: the engine's own
    (:data:`~troedler.core.cards.ROUTE_CARDS`), set when the move is built."""
    feed_cost: ClassVar[int] = 0
    """No special feed."""

    @kind.validator
    def _kind(self, attribute: attrs.Attribute[RouteKind], value: object) -> None:
        if type(value) is not RouteKind:
            raise _bad("PlayRoute", "kind", "a RouteKind", value)

    def __attrs_post_init__(self) -> None:  # after the validators
        object.__setattr__(self, "card", ROUTE_CARDS[self.kind])

    def __str__(self) -> str:
        return f"{self.kind.code} {self.to}{_take(self.take)}"


@attrs.frozen
class PlayExtraGood:
    """Play an extra good (+1) card to take ``good`` where the cart stands (T3)."""

    good: Good = attrs.field(validator=_good)
    card: ClassVar[ExtraGoodCard] = EXTRA_GOOD
    """The extra good (+1) card."""
    feed_cost: ClassVar[int] = 0
    """No special feed."""

    def __str__(self) -> str:
        return f"extra{_take(self.good)}"


@attrs.frozen
class PlayFeedMove:
    """Play special feed to move to ``to`` along any route, taking ``take`` (T5a)."""

    to: str = attrs.field(validator=_village)
    take: Good | None = attrs.field(default=None, validator=_good_or_none)
    card: ClassVar[SpecialFeedCard] = SPECIAL_FEED
    """The special feed card."""
    feed_cost: ClassVar[int] = 1
    """One special feed."""

    def __str__(self) -> str:
        return f"feed {self.to}{_take(self.take)}"


@attrs.frozen
class PlayFeedExtraGood:
    """Play special feed to take ``good`` where the cart stands (T5b)."""

    good: Good = attrs.field(validator=_good)
    card: ClassVar[SpecialFeedCard] = SPECIAL_FEED
    """The special feed card."""
    feed_cost: ClassVar[int] = 1
    """One special feed."""

    def __str__(self) -> str:
        return f"feed{_take(self.good)}"


@attrs.frozen
class PlayRequest:
    """Fulfil goods request ``request`` by putting down ``delivered`` (T4, T5c).

    Every good the request shows that ``delivered`` lacks is replaced by one
    special feed.
    """

    request: RequestCard
    delivered: Goods
    feed_cost: int = attrs.field(init=False, eq=False, repr=False)
    """Special feed this delivery plays: one per good of the request that
    :attr:`delivered` lacks (T5c); set when the move is built."""

    def __attrs_post_init__(self) -> None:
        if type(self.request) is not RequestCard:
            raise _bad("PlayRequest", "request", "a RequestCard", self.request)
        if type(self.delivered) is not Goods:
            raise _bad("PlayRequest", "delivered", "Goods", self.delivered)
        object.__setattr__(self, "feed_cost", len(self.request.goods - self.delivered))

    @property
    def card(self) -> RequestCard:
        """The goods request the move fulfils: :attr:`request`."""
        return self.request

    @classmethod
    def exact(cls, request: RequestCard) -> PlayRequest:
        """Fulfil ``request`` with exactly the goods it shows (no feed)."""
        if cls is PlayRequest:
            return _exact(request)
        return cls(request, request.goods)

    def __str__(self) -> str:
        if isinstance(self.request, RequestCard) and self.delivered == self.request.goods:
            return f"deliver {self.request}"
        return f"deliver {self.request} with {self.delivered}"


@attrs.frozen(weakref_slot=False)
class EndTurn:
    """End the playing part of the turn (T6).

    The played cards are put away. A hand then over the hand limit waits for
    the same player's :class:`DiscardCard` moves (T7).
    """

    card: ClassVar[None] = None
    """No card: the played cards are put away by the rules."""
    feed_cost: ClassVar[int] = 0
    """No special feed."""

    def __str__(self) -> str:
        return "end"


@attrs.frozen(weakref_slot=False)
class DiscardCard:
    """Over the hand limit after the turn: put ``card`` from the hand onto the
    discard pile (T7).

    Only route, extra-good and goods-request cards are discarded, one move per
    card, in hand order: never a card that comes before the one discarded
    last.
    """

    card: Card
    """The card of the hand that goes onto the discard pile."""
    feed_cost: ClassVar[int] = 0
    """No special feed: special feed is never discarded."""

    def __attrs_post_init__(self) -> None:
        if type(self.card) not in CARD_TYPES:
            raise _bad("DiscardCard", "card", "a card", self.card)

    def __str__(self) -> str:
        return f"discard {self.card}"


# The moves listed again and again, one object per card: listing them builds
# nothing. Bounded: a catalogue holds a few dozen card values.
@functools.lru_cache(maxsize=1024)
def _exact(request: RequestCard) -> PlayRequest:
    return PlayRequest(request, request.goods)


@functools.lru_cache(maxsize=1024)
def discard_move(card: Card) -> DiscardCard:
    """The :class:`DiscardCard` of ``card``: one object per card value."""
    return DiscardCard(card)


Move = (
    TakePile
    | DiscardPile
    | PlayRoute
    | PlayExtraGood
    | PlayFeedMove
    | PlayFeedExtraGood
    | PlayRequest
    | EndTurn
    | DiscardCard
)
"""Any decision a player can make."""


# --- the engine's own moves ---------------------------------------------------
#
# Built once and shared: legal_moves lists them and the actions' verify_
# functions return them, so that listing and checking moves builds no
# records, and a checked move holds the engine's own objects.

TAKE_PILE_MOVES = tuple(TakePile(i) for i in range(pile_count(MAX_PLAYERS)))
"""``TakePile(i)`` for every dealer pile of the largest game (R2)."""
DISCARD_PILE_MOVES = tuple(DiscardPile(i) for i in range(pile_count(MAX_PLAYERS)))
"""``DiscardPile(i)`` for every dealer pile of the largest game (R4)."""
EXTRA_GOOD_MOVES = tuple(PlayExtraGood(good) for good in Good)
"""``PlayExtraGood(good)`` in :class:`~troedler.Good` order."""
FEED_EXTRA_GOOD_MOVES = tuple(PlayFeedExtraGood(good) for good in Good)
"""``PlayFeedExtraGood(good)`` in :class:`~troedler.Good` order."""
END_TURN = EndTurn()

Arrivals = tuple[tuple[int, tuple[Move, ...]], ...]
"""The moves to each village one step away: (its index, its moves), the moves
indexed by what is taken on arrival: [0] nothing, [1 + good] that good."""


@attrs.frozen(eq=False)
class BoardMoves:
    """Every route and feed move of one board, built once."""

    routes: tuple[tuple[Arrivals, ...], ...]
    """routes[village][kind]: where a route card of that kind leads."""
    feed: tuple[Arrivals, ...]
    """feed[village]: where special feed leads."""


def board_moves(board: Board) -> BoardMoves:
    """The route and feed moves of ``board`` (T2, T5a), by village and kind."""
    # Asked at nearly every decision, of one board again and again: the last
    # board's moves are found by identity, which spares hashing the board.
    last = _LAST_BOARD_MOVES[0]
    if last[0] is board:
        return last[1]
    found = _board_moves(board)
    _LAST_BOARD_MOVES[0] = (board, found)
    return found


@functools.lru_cache(maxsize=8)
def _board_moves(board: Board) -> BoardMoves:

    def arrivals(village: int, kind: RouteKind | None) -> Arrivals:
        result = []
        for there in board.targets(village, kind):
            name = board.villages[there].name
            if kind is None:
                options: tuple[Move, ...] = (PlayFeedMove(name),) + tuple(
                    PlayFeedMove(name, good) for good in Good
                )
            else:
                options = (PlayRoute(kind, name),) + tuple(
                    PlayRoute(kind, name, good) for good in Good
                )
            result.append((there, options))
        return tuple(result)

    count = len(board.villages)
    return BoardMoves(
        routes=tuple(tuple(arrivals(v, kind) for kind in RouteKind) for v in range(count)),
        feed=tuple(arrivals(v, None) for v in range(count)),
    )


_LAST_BOARD_MOVES: list[tuple[Board | None, BoardMoves]] = [(None, BoardMoves((), ()))]
"""The board :func:`board_moves` was last asked for, and its moves."""
