"""The cards: routes, extra goods, special feed, goods requests (C2, C3, C5).

Cards are values: two bridge cards are the same card, and a hand is a
multiset of cards. Each card has a short notation code::

    trail  bridge  ferry  moor     route cards (mountain trail ... moor path)
    extra                          extra good (+1)
    feed                           special feed
    AAB:5                          goods request: its goods, then its points

The printed goods requests are not public; the default catalogue
(``data/cards.toml``) is a reconstruction that keeps C2 and C5.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import json
import operator
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs

from troedler.core.board import Board, RouteKind
from troedler.core.datafile import Fields, read_packaged_toml, read_toml
from troedler.core.errors import ConfigurationError, NotationError, quote
from troedler.core.goods import Goods

__all__ = [
    "CARD_TYPES",
    "EXTRA_GOOD",
    "ROUTE_CARDS",
    "SPECIAL_FEED",
    "UNKNOWN",
    "Card",
    "CardCatalogue",
    "ExtraGoodCard",
    "RequestCard",
    "RouteCard",
    "SpecialFeedCard",
    "StartingSet",
    "UnknownCard",
    "card_sort_key",
    "default_cards",
    "fingerprint",
    "hand_count",
    "hand_counts",
    "hand_index",
    "hand_without",
    "is_card",
    "load_cards",
    "parse_card",
    "sort_hand",
]

ROUTES_PER_KIND = 11
NUM_REQUESTS = 26
NUM_SPECIAL_FEED = 24
NUM_EXTRA_GOODS = 4
NUM_STARTING_SETS = 4
MAX_REQUEST_GOODS = 8
MAX_REQUEST_POINTS = 20


SortKey = int
"""A card's place in hand order; equal cards, and only they, share one."""

# Hand order: the routes by kind (their keys are the kinds), then the extra
# good, special feed, and the goods requests, whose keys start after it.
_EXTRA_GOOD_KEY = len(RouteKind)
_SPECIAL_FEED_KEY = _EXTRA_GOOD_KEY + 1
_FIRST_REQUEST_KEY = _SPECIAL_FEED_KEY + 1

MAX_REQUEST_GOODS_OF_A_KIND = 16
MAX_POINTS = 999
_POINTS_DIGITS = len(str(MAX_POINTS))


def _check_request_goods(instance: object, attribute: object, value: Goods) -> None:
    if not isinstance(value, Goods) or max(value.counts) > MAX_REQUEST_GOODS_OF_A_KIND:
        raise ConfigurationError(
            f"a goods request shows Goods with at most {MAX_REQUEST_GOODS_OF_A_KIND} of a kind, "
            f"not {quote(value)}"
        )


def _check_points(instance: object, attribute: object, value: int) -> None:
    if type(value) is not int or not 0 <= value <= MAX_POINTS:
        raise ConfigurationError(
            f"a goods request is worth 0 to {MAX_POINTS} points, not {quote(value)}"
        )


def _check_type(value: object, kind: type, name: str) -> None:
    if not isinstance(value, kind):
        raise ConfigurationError(f"expected a {kind.__name__} as {name}, got {quote(value)}")


def _check_kind(instance: object, attribute: object, value: Any) -> None:
    if not isinstance(value, RouteKind):
        raise ConfigurationError(f"a route card has a RouteKind, not {quote(value)}")


@attrs.frozen(cache_hash=True)
class RouteCard:
    """A route card: moves the cart along one route of its kind (T2)."""

    kind: RouteKind = attrs.field(validator=_check_kind)
    sort_key: SortKey = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:  # after the validators
        object.__setattr__(self, "sort_key", int(self.kind))

    def __str__(self) -> str:
        return self.kind.code


@attrs.frozen(cache_hash=True)
class ExtraGoodCard:
    """The extra good (+1) card: take one more good where the cart is (T3)."""

    sort_key: ClassVar[SortKey] = _EXTRA_GOOD_KEY

    def __str__(self) -> str:
        return "extra"


@attrs.frozen(cache_hash=True)
class SpecialFeedCard:
    """Special feed: one move, one good or one substitution (T5); damage once used."""

    sort_key: ClassVar[SortKey] = _SPECIAL_FEED_KEY

    def __str__(self) -> str:
        return "feed"


@attrs.frozen(cache_hash=True)
class RequestCard:
    """A goods request (order card): deliver ``goods`` to earn ``points`` (T4, C5)."""

    goods: Goods = attrs.field(validator=_check_request_goods)
    points: int = attrs.field(validator=_check_points)
    sort_key: SortKey = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:  # after the validators
        # By size, then most of the first kinds, then points: one int per value.
        key = len(self.goods)
        for n in self.goods.counts:
            key = key * (MAX_REQUEST_GOODS_OF_A_KIND + 1) + MAX_REQUEST_GOODS_OF_A_KIND - n
        object.__setattr__(
            self, "sort_key", _FIRST_REQUEST_KEY + key * (MAX_POINTS + 1) + self.points
        )

    def __str__(self) -> str:
        return f"{self.goods}:{self.points}"


@attrs.frozen(cache_hash=True)
class UnknownCard:
    """A card whose face a seat does not know (I1-I3): face down, or in a hand
    or value pile it has not seen. Only a seat's view holds it, as
    :data:`UNKNOWN`, in the place of each card it does not know; a game state
    never does."""

    sort_key: ClassVar[SortKey] = -1

    def __str__(self) -> str:
        return "?"


Card = RouteCard | ExtraGoodCard | SpecialFeedCard | RequestCard | UnknownCard
"""Any card of the game, or :data:`UNKNOWN` where a seat's view hides one."""

CARD_TYPES = (RouteCard, ExtraGoodCard, SpecialFeedCard, RequestCard)
"""The classes of the game's cards, for checks of untrusted values; a game
state holds only these, a seat's view :data:`UNKNOWN` as well."""


def is_card(value: object) -> bool:
    """Whether ``value`` is a card a game state may hold: one of
    :data:`CARD_TYPES` whose place in hand order is an int. A look-alike
    built past its constructor is not, and is never looked for in a hand."""
    return type(value) in CARD_TYPES and type(getattr(value, "sort_key", None)) is int


UNKNOWN = UnknownCard()
"""The card a seat does not know, in a seat's view."""

EXTRA_GOOD = ExtraGoodCard()
"""The extra good (+1) card."""

SPECIAL_FEED = SpecialFeedCard()
"""The special feed card."""

ROUTE_CARDS = tuple(RouteCard(kind) for kind in RouteKind)
"""The route card of each kind, in :class:`RouteKind` order. Games hold these
very objects, so finding a card in a hand is an identity check."""


_CARD_WORDS: dict[str, Card] = {
    "extra": EXTRA_GOOD,
    "feed": SPECIAL_FEED,
    **{kind.code: ROUTE_CARDS[kind] for kind in RouteKind},
}


def card_sort_key(card: Card) -> SortKey:
    """The order in which hands and notation list cards.

    Routes (trail, bridge, ferry, moor), then extra goods, special feed, and
    goods requests by size, goods and points. The key is an int, the same for
    equal cards and different for different ones.
    """
    return card.sort_key


_SORT_KEY = operator.attrgetter("sort_key")


def sort_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    """``cards`` in hand order (:func:`card_sort_key`)."""
    return tuple(sorted(cards, key=_SORT_KEY))


def hand_index(hand: Sequence[Card], card: Card) -> int:
    """Where ``card`` first lies in the sorted ``hand``, or -1 if it is not there.

    A binary search on sort keys: no card is compared with ``==``.
    """
    key = card.sort_key
    i = bisect.bisect_left(hand, key, key=_SORT_KEY)
    return i if i < len(hand) and hand[i].sort_key == key else -1


def hand_count(hand: Sequence[Card], card: Card) -> int:
    """How many cards equal to ``card`` the sorted ``hand`` holds."""
    key = card.sort_key
    return bisect.bisect_right(hand, key, key=_SORT_KEY) - bisect.bisect_left(
        hand, key, key=_SORT_KEY
    )


def hand_counts(hand: Sequence[Card]) -> tuple[tuple[Card, int], ...]:
    """Each distinct card of the sorted ``hand`` once, in hand order, with its count."""
    found: list[tuple[Card, int]] = []
    for card in hand:
        if found and found[-1][0].sort_key == card.sort_key:
            found[-1] = (found[-1][0], found[-1][1] + 1)
        else:
            found.append((card, 1))
    return tuple(found)


def hand_without(hand: tuple[Card, ...], card: Card, count: int = 1) -> tuple[Card, ...]:
    """The sorted ``hand`` with ``count`` cards equal to ``card`` taken out;
    :class:`~troedler.ConfigurationError` if it holds fewer."""
    if count <= 0:
        return hand
    i = hand_index(hand, card)
    if i < 0 or i + count > len(hand) or hand[i + count - 1].sort_key != card.sort_key:
        raise ConfigurationError(f"the hand holds fewer than {count} {card} cards")
    return hand[:i] + hand[i + count :]


def parse_card(text: str) -> Card:
    """The card whose notation code is ``text`` (``bridge``, ``feed``, ``AAB:5``)."""
    if not isinstance(text, str):
        raise NotationError(f"expected a card code, got {quote(text)}")
    word = text.strip()
    known = _CARD_WORDS.get(word.lower())
    if known is not None:
        return known
    if ":" in word:
        goods_text, _, points_text = word.partition(":")
        if not points_text.isdigit() or len(points_text) > _POINTS_DIGITS or not goods_text:
            raise NotationError(f"expected a goods request like AAB:5, got {quote(text)}")
        try:
            return RequestCard(Goods.parse(goods_text), int(points_text))
        except ValueError as error:  # a request no deck could hold
            raise NotationError(
                f"expected a goods request like AAB:5, got {quote(text)}: {error}"
            ) from None
    try:
        return ROUTE_CARDS[RouteKind.parse(word)]
    except NotationError:
        raise NotationError(
            "expected a card (trail, bridge, ferry, moor, extra, feed, or a goods "
            f"request like AAB:5), got {quote(text)}"
        ) from None


@attrs.frozen
class StartingSet:
    """The three starting cards marked with one start village's symbol (C3)."""

    village: str = attrs.field(validator=lambda _s, _a, v: _check_type(v, str, "village"))
    request: RequestCard = attrs.field(
        validator=lambda _s, _a, v: _check_type(v, RequestCard, "request")
    )
    route: RouteKind = attrs.field(validator=_check_kind)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The set's goods request, route card and special feed."""
        return (self.request, ROUTE_CARDS[self.route], SPECIAL_FEED)


def _tuple_of(value: Iterable[Any], kind: type) -> tuple[Any, ...]:
    """``value`` as a tuple of ``kind`` items: a catalogue shares no list with
    its caller, and holds only what it says."""
    items = tuple(value) if isinstance(value, Iterable) else None
    if items is None or isinstance(value, str) or not all(isinstance(x, kind) for x in items):
        raise ConfigurationError(
            f"card catalogue: expected {kind.__name__} items, got {quote(value)}"
        )
    return items


def _route_cards(value: Iterable[RouteCard]) -> tuple[RouteCard, ...]:
    return _tuple_of(value, RouteCard)


def _request_cards(value: Iterable[RequestCard]) -> tuple[RequestCard, ...]:
    return _tuple_of(value, RequestCard)


def _starting_sets(value: Iterable[StartingSet]) -> tuple[StartingSet, ...]:
    return _tuple_of(value, StartingSet)


def _check_count(instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    if type(value) is not int or not 0 <= value <= MAX_POINTS:
        raise ConfigurationError(
            f"card catalogue: {attribute.name} must be 0 to {MAX_POINTS}, not {quote(value)}"
        )


@attrs.frozen(cache_hash=True)
class CardCatalogue:
    """Every card of the game (C2): the deck and the four starting sets.

    Built by :func:`load_cards`; built directly, wrong types raise
    :class:`~troedler.ConfigurationError`.
    """

    routes: tuple[RouteCard, ...] = attrs.field(converter=_route_cards)
    requests: tuple[RequestCard, ...] = attrs.field(converter=_request_cards)
    special_feed: int = attrs.field(validator=_check_count)
    extra_goods: int = attrs.field(validator=_check_count)
    starting_sets: tuple[StartingSet, ...] = attrs.field(converter=_starting_sets)

    def starting_set(self, village: str) -> StartingSet:
        """The starting set marked with ``village``; KeyError if there is none."""
        for starting_set in self.starting_sets:
            if starting_set.village == village:
                return starting_set
        raise KeyError(village)

    @property
    def size(self) -> int:
        """How many cards the catalogue holds in all (110 for the printed game)."""
        return (
            len(self.routes)
            + len(self.requests)
            + self.special_feed
            + self.extra_goods
            + sum(len(starting_set.cards) for starting_set in self.starting_sets)
        )


def _request(fields: Fields) -> RequestCard:
    fields.only("goods", "points")
    text = fields.string("goods")
    try:
        goods = Goods.parse(text)
    except NotationError as error:
        raise fields.error("goods", str(error)) from None
    if not 1 <= len(goods) <= MAX_REQUEST_GOODS:
        raise fields.error("goods", f"expected 1 to {MAX_REQUEST_GOODS} goods, got {len(goods)}")
    return RequestCard(goods, fields.integer("points", 1, MAX_REQUEST_POINTS))


def _cards_from_toml(source: str, data: object) -> CardCatalogue:
    top = Fields(source, "", data)
    top.only("routes", "requests", "special_feed", "extra_goods", "starting_sets")
    route_counts = top.table_at("routes")
    route_counts.only(*(kind.code for kind in RouteKind))
    routes: list[RouteCard] = []
    for kind in RouteKind:
        count = route_counts.integer(kind.code, ROUTES_PER_KIND, ROUTES_PER_KIND)
        routes.extend(ROUTE_CARDS[kind] for _ in range(count))
    requests = tuple(_request(entry) for entry in top.tables("requests"))
    if len(requests) != NUM_REQUESTS:
        raise top.error(
            "requests", f"expected {NUM_REQUESTS} goods requests (C2), got {len(requests)}"
        )
    special_feed = top.integer("special_feed", NUM_SPECIAL_FEED, NUM_SPECIAL_FEED)
    extra_goods = top.integer("extra_goods", NUM_EXTRA_GOODS, NUM_EXTRA_GOODS)
    starting_sets: list[StartingSet] = []
    for entry in top.tables("starting_sets"):
        entry.only("village", "route", "request")
        village = entry.string("village")
        if any(other.village == village for other in starting_sets):
            raise entry.error("village", f"{quote(village)} already has a starting set")
        try:
            kind = RouteKind.parse(entry.string("route"))
        except NotationError as error:
            raise entry.error("route", str(error)) from None
        starting_sets.append(StartingSet(village, _request(entry.table_at("request")), kind))
    if len(starting_sets) != NUM_STARTING_SETS:
        raise top.error(
            "starting_sets",
            f"expected {NUM_STARTING_SETS} starting sets (C2), got {len(starting_sets)}",
        )
    return CardCatalogue(tuple(routes), requests, special_feed, extra_goods, tuple(starting_sets))


def load_cards(path: str | Path) -> CardCatalogue:
    """Load a card catalogue from a TOML file; :class:`FormatError` names file and field.

    The format is that of the default catalogue, ``troedler/data/cards.toml``.
    Whether the starting sets fit a board (C3) is checked when a game starts.
    """
    return _cards_from_toml(*read_toml(path))


@functools.cache
def default_cards() -> CardCatalogue:
    """The reconstructed default card catalogue shipped with troedler (C2, C5)."""
    return _cards_from_toml(*read_packaged_toml("cards.toml"))


@functools.lru_cache(maxsize=16)
def fingerprint(board: Board, cards: CardCatalogue) -> str:
    """A short hash of the board and card catalogue a game was played with."""
    data = {
        "villages": [[v.name, v.number] for v in board.villages],
        "routes": [[*r.ends, r.kind.code] for r in board.routes],
        "start_villages": list(board.start_villages),
        "route_cards": [str(card) for card in cards.routes],
        "requests": [str(card) for card in cards.requests],
        "special_feed": cards.special_feed,
        "extra_goods": cards.extra_goods,
        "starting_sets": [[s.village, s.route.code, str(s.request)] for s in cards.starting_sets],
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
