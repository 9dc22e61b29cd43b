"""A fixed integer id for every move of a board and card catalogue.

Learning libraries pick actions by number from a space of fixed size. An
:class:`ActionLayout` numbers every move the game can ever offer on one
board with one card catalogue, so that each id has one meaning in every
state and every phase: on the default board id 140 is "bridge to
Knockando, taking a vase" (``bridge Knockando +V``) wherever it is legal.
The ids depend only on the board and the cards, which
:func:`troedler.io.state_json.fingerprint` identifies, and not on the
number of players.

The ids come in sections, in this order (``docs/rl.md`` has the table
with the ids and counts of the default board and cards):

=================  =====================================================
section            one id per
=================  =====================================================
take pile          dealer pile 0 to 4 (R4)
discard pile       dealer pile 0 to 2: only two players discard one (R4)
route              route kind, village a route of that kind reaches,
                   and the good taken there or none (T2)
extra good         good taken (T3)
feed move          village reached, and the good taken there or none (T5a)
feed extra good    good taken (T5b)
deliver            goods request, and the goods put down: every multiset of
                   goods of the request's size (T4, T5c)
end turn           one id (T6)
discard card       card type that may be discarded to the hand limit (T7)
=================  =====================================================

Goods come in :class:`~troedler.Good` order (A B C U P V); "none" comes
before them. Villages come in board order, kinds in
:class:`~troedler.RouteKind` order, cards in hand order. Deliveries list the
multisets of a request's size in the alphabetical order of their notation
(``AA``, ``AB`` ... ``VV``).

This module needs nothing beyond troedler itself.

>>> from troedler import new_game
>>> state = new_game(2, seed=5)
>>> layout = layout_for(state)
>>> [(i, str(layout.move(i))) for i in layout.legal_action_ids(state)]
[(5, 'discard 0'), (6, 'discard 1'), (7, 'discard 2')]
>>> str(layout.move(140)), layout.num_actions
('bridge Knockando +V', 2441)
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Iterable, Iterator

import attrs

from troedler.core.board import Board, RouteKind, default_board
from troedler.core.cards import (
    EXTRA_GOOD,
    ROUTE_CARDS,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
    default_cards,
    fingerprint,
    sort_hand,
)
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError, IllegalMoveError, TroedlerError
from troedler.core.goods import Good, Goods
from troedler.core.legal import MAX_PILES, apply_move, legal_moves
from troedler.core.moves import (
    DiscardCard,
    DiscardPile,
    EndTurn,
    Move,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    TakePile,
)
from troedler.core.state import GameState

__all__ = [
    "ACTION_LAYOUT_VERSION",
    "IDENTITY_CAP",
    "SECTION_NAMES",
    "ActionEncoder",
    "ActionLayout",
    "Section",
    "action_layout",
    "card_types",
    "deliveries",
    "layout_for",
    "request_types",
]

ACTION_LAYOUT_VERSION = 1
"""Changes whenever the order of the sections or of the ids in them changes.
With the fingerprint of board and cards it pins down what every id means."""


def request_types(cards: CardCatalogue) -> tuple[RequestCard, ...]:
    """Every distinct goods request of the catalogue, starting sets included, in hand order."""
    found = set(cards.requests)
    found.update(starting_set.request for starting_set in cards.starting_sets)
    return sort_hand(found)  # type: ignore[return-value]


def card_types(cards: CardCatalogue) -> tuple[Card, ...]:
    """Every distinct card of the catalogue, in hand order.

    The four route cards, extra good, special feed, then the goods requests
    (:func:`request_types`). Observation tensors count cards in this order.
    """
    return (*ROUTE_CARDS, EXTRA_GOOD, SPECIAL_FEED, *request_types(cards))


def deliveries(size: int) -> tuple[Goods, ...]:
    """Every multiset of ``size`` goods, in the alphabetical order of their notation."""
    return tuple(
        Goods.of(combination)
        for combination in itertools.combinations_with_replacement(tuple(Good), size)
    )


@attrs.frozen
class Section:
    """A block of consecutive action ids, ``start`` to ``stop - 1``: one kind of move."""

    name: str
    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start

    def __contains__(self, action_id: object) -> bool:
        return isinstance(action_id, int) and self.start <= action_id < self.stop


IDENTITY_CAP = 5_000
"""Move objects an :class:`ActionEncoder` remembers by identity at most: far
more than the engine's prebuilt ones."""

_TWO_PLAYER_PILES = 3
"""Only the two-player dealer discards a dealer pile, and they form 3 (R2, R4)."""

SECTION_NAMES = (
    "take pile",
    "discard pile",
    "route",
    "extra good",
    "feed move",
    "feed extra good",
    "deliver",
    "end turn",
    "discard card",
)
"""The sections of the action ids, in id order: the one statement of that
order, which the JAX engine reads too."""


def _layout_moves(board: Board, cards: CardCatalogue) -> Iterator[tuple[str, list[Move]]]:
    """Each section's name and its moves, in id order."""
    names = iter(SECTION_NAMES)
    yield next(names), [TakePile(i) for i in range(MAX_PILES)]
    yield next(names), [DiscardPile(i) for i in range(_TWO_PLAYER_PILES)]
    takes: tuple[Good | None, ...] = (None, *Good)
    reached = [
        {end for route in board.routes if route.kind is kind for end in route.ends}
        for kind in RouteKind
    ]
    yield (
        next(names),
        [
            PlayRoute(kind, village.name, take)
            for kind in RouteKind
            for village in board.villages
            if village.name in reached[kind]
            for take in takes
        ],
    )
    yield next(names), [PlayExtraGood(good) for good in Good]
    anywhere = set().union(*reached)
    yield (
        next(names),
        [
            PlayFeedMove(village.name, take)
            for village in board.villages
            if village.name in anywhere
            for take in takes
        ],
    )
    yield next(names), [PlayFeedExtraGood(good) for good in Good]
    yield (
        next(names),
        [
            PlayRequest(request, delivered)
            for request in request_types(cards)
            for delivered in deliveries(len(request.goods))
        ],
    )
    yield next(names), [EndTurn()]
    discardable: tuple[Card, ...] = (*ROUTE_CARDS, EXTRA_GOOD, *request_types(cards))
    yield next(names), [DiscardCard(card) for card in discardable]


class ActionLayout:
    """The action ids of one board and card catalogue.

    Build it with :func:`action_layout` (or :func:`layout_for` a state),
    which keeps one layout per board and catalogue. Its methods take states
    of any player count on that board with those cards.
    """

    board: Board
    cards: CardCatalogue
    fingerprint: str
    """:func:`troedler.io.state_json.fingerprint` of board and cards."""
    version: int
    """:data:`ACTION_LAYOUT_VERSION`."""
    sections: tuple[Section, ...]
    """The sections in id order; together they cover ``0 .. num_actions - 1``."""
    discard_types: tuple[Card, ...]
    """The cards a :class:`~troedler.DiscardCard` may name, in id order."""

    def __init__(self, board: Board, cards: CardCatalogue) -> None:
        if not isinstance(board, Board) or not isinstance(cards, CardCatalogue):
            raise ConfigurationError("an action layout needs a Board and a CardCatalogue")
        self.board = board
        self.cards = cards
        self.fingerprint = fingerprint(board, cards)
        self.version = ACTION_LAYOUT_VERSION
        moves: list[Move] = []
        sections = []
        for name, section in _layout_moves(board, cards):
            sections.append(Section(name, len(moves), len(moves) + len(section)))
            moves.extend(section)
        self.sections = tuple(sections)
        self._moves = tuple(moves)
        self._ids = {move: i for i, move in enumerate(moves)}
        if len(self._ids) != len(moves):  # a bug here would give two ids one meaning
            raise TroedlerError("the action layout names a move twice")
        self.discard_types = tuple(move.card for move in moves if isinstance(move, DiscardCard))
        # Fast paths for the two kinds of move that legal_moves builds afresh
        # each time (the others it takes from prebuilt tables, which an
        # ActionEncoder remembers by identity):
        # a discard by its card's sort key, a delivery by request and goods.
        discard = self.section("discard card").start
        self._discard_ids = {
            card.sort_key: discard + i for i, card in enumerate(self.discard_types)
        }
        self._request_ids: dict[int, tuple[int, dict[tuple[int, ...], int]]] = {}
        for i, move in enumerate(moves):
            if isinstance(move, PlayRequest):
                request = move.request
                if request.sort_key not in self._request_ids:
                    multisets = deliveries(len(request.goods))
                    ranks: dict[tuple[int, ...], int] = {
                        goods.counts: r for r, goods in enumerate(multisets)
                    }
                    self._request_ids[request.sort_key] = (i, ranks)

    @property
    def num_actions(self) -> int:
        """How many action ids there are: every id is ``0 <= id < num_actions``."""
        return len(self._moves)

    def __repr__(self) -> str:
        return f"<ActionLayout {self.fingerprint} v{self.version}: {self.num_actions} actions>"

    def section(self, name: str) -> Section:
        """The section called ``name`` (``"deliver"``); KeyError if there is none."""
        for section in self.sections:
            if section.name == name:
                return section
        raise KeyError(name)

    def section_of(self, action_id: int) -> Section:
        """The section that holds ``action_id``."""
        checked = self._check(action_id)
        for section in self.sections:
            if checked < section.stop:
                return section
        raise AssertionError("unreachable: sections cover every id")  # pragma: no cover

    def action_id(self, move: Move) -> int:
        """The id of ``move``; :class:`IllegalMoveError` if no state of this
        board and these cards could offer it."""
        return self._find(move)

    def action_ids(self, moves: Iterable[Move]) -> list[int]:
        """The ids of ``moves``, in their order (see :meth:`action_id`).

        An environment asks an :class:`ActionEncoder` of its own instead,
        which remembers the move objects it has seen."""
        return [self._find(move) for move in moves]

    def _find(self, move: Move) -> int:
        """:meth:`action_id`, from the move's value."""
        kind = type(move)
        try:
            if kind is DiscardCard:
                return self._discard_ids[move.card.sort_key]  # type: ignore[union-attr]
            if kind is PlayRequest:
                start, ranks = self._request_ids[move.request.sort_key]  # type: ignore[union-attr]
                return start + ranks[move.delivered.counts]  # type: ignore[union-attr]
            found = self._ids[move]
        except (KeyError, TypeError, AttributeError):  # not a move of this layout
            raise IllegalMoveError(
                "T1", f"{describe(move)} is not a move of this board and these cards"
            ) from None
        return found

    def move(self, action_id: int) -> Move:
        """The move ``action_id`` stands for, whatever the state.

        :class:`IllegalMoveError` if it is not an id of this layout.
        """
        return self._moves[self._check(action_id)]

    def move_for(self, action_id: int, state: GameState) -> Move:
        """The move ``action_id`` stands for, checked to be legal in ``state``.

        :class:`IllegalMoveError` naming the rule that forbids it, if it is not.
        """
        move = self.move(action_id)
        self._check_state(state)
        if move in legal_moves(state):
            return move
        apply_move(state, move)  # raises the rule's own reason
        # Unreachable while legal_moves and apply_move agree, as they must.
        raise IllegalMoveError("T1", f"{move} is not among the legal moves")  # pragma: no cover

    def legal_action_ids(self, state: GameState) -> tuple[int, ...]:
        """The ids of the legal moves in ``state``, ascending; empty once the game is over."""
        self._check_state(state)
        return tuple(sorted(self.action_ids(legal_moves(state))))

    def _check(self, action_id: object) -> int:
        if not isinstance(action_id, bool):
            try:
                checked = operator.index(action_id)  # type: ignore[arg-type]
            except TypeError:
                pass
            else:
                if 0 <= checked < len(self._moves):
                    return int(checked)
        raise IllegalMoveError(
            "T1", f"an action id is an int 0 to {len(self._moves) - 1}, not {describe(action_id)}"
        )

    def _check_state(self, state: GameState) -> None:
        if not isinstance(state, GameState):
            raise ConfigurationError(f"expected a GameState, got {describe(state)}")
        if state.board is not self.board and state.board != self.board:
            raise ConfigurationError("the state is played on another board than the layout's")
        if state.cards is not self.cards and state.cards != self.cards:
            raise ConfigurationError("the state is played with other cards than the layout's")


class ActionEncoder:
    """The action ids of moves, for one environment: an :class:`ActionLayout`
    that remembers the move objects it has seen.

    The engine hands out the same route, feed, take and end-turn objects
    again and again (from prebuilt tables), and hashing a move record costs
    several times a look-up by ``id()``. What an encoder remembers is its
    own: each PettingZoo environment and each OpenSpiel game table owns one,
    and nothing is shared through ``id()`` across the process. It keeps the
    moves it remembers, so that no other object can take their ``id()``,
    and stops remembering at :data:`IDENTITY_CAP` moves.
    """

    def __init__(self, layout: ActionLayout) -> None:
        self.layout = layout
        self._by_identity: dict[int, int] = {}
        self._kept: list[Move] = []

    def action_id(self, move: Move) -> int:
        """:meth:`ActionLayout.action_id`, by identity for a move seen before."""
        found = self._by_identity.get(id(move))
        return found if found is not None else self._remembered(move)

    def action_ids(self, moves: Iterable[Move]) -> list[int]:
        """:meth:`ActionLayout.action_ids`, by identity for moves seen before."""
        known = self._by_identity.get
        ids = []
        for move in moves:
            found = known(id(move))
            ids.append(found if found is not None else self._remembered(move))
        return ids

    def legal_action_ids(self, state: GameState) -> tuple[int, ...]:
        """:meth:`ActionLayout.legal_action_ids`, by identity for moves seen before."""
        self.layout._check_state(state)
        return tuple(sorted(self.action_ids(legal_moves(state))))

    def _remembered(self, move: Move) -> int:
        found = self.layout._find(move)
        if len(self._kept) < IDENTITY_CAP:
            self._kept.append(move)
            self._by_identity[id(move)] = found
        return found


@functools.lru_cache(maxsize=8)
def _layout(board: Board, cards: CardCatalogue) -> ActionLayout:
    return ActionLayout(board, cards)


def action_layout(board: Board | None = None, cards: CardCatalogue | None = None) -> ActionLayout:
    """The action layout of ``board`` and ``cards`` (default: troedler's own), built once.

    >>> action_layout().num_actions
    2441
    """
    return _layout(
        default_board() if board is None else board, default_cards() if cards is None else cards
    )


def layout_for(state: GameState) -> ActionLayout:
    """The action layout of the board and cards ``state`` is played with."""
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {describe(state)}")
    return _layout(state.board, state.cards)
