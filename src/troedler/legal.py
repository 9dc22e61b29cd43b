"""Legal moves, and applying a move: the one door into the actions.

:func:`legal_moves` lists every move the rules allow, each once, in a fixed
order; :func:`apply_move` checks a move and carries it out. The two never
disagree: every listed move applies, and every move that applies is listed.
"""

from __future__ import annotations

import functools
from typing import cast

import attrs

from troedler import actions
from troedler.board import Board, RouteKind
from troedler.cards import (
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
)
from troedler.errors import ConfigurationError, IllegalMoveError, quote
from troedler.goods import Good, Goods
from troedler.moves import (
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
    discard_move,
)
from troedler.rulebook import MAX_PLAYERS, dealer_discards_first, pile_count
from troedler.state import GameState, Phase

__all__ = ["apply_move", "is_legal", "legal_moves", "verify_move"]


MAX_PILES = pile_count(MAX_PLAYERS)
"""Dealer piles with the most players: four players + 1 (R2)."""

_TAKE = tuple(TakePile(i) for i in range(MAX_PILES))
_DISCARD = tuple(DiscardPile(i) for i in range(MAX_PILES))
_EXTRA = tuple(PlayExtraGood(good) for good in Good)
_FEED_EXTRA = tuple(PlayFeedExtraGood(good) for good in Good)
_END = EndTurn()

# One destination: (village index, its moves). The moves are indexed by what is
# taken on arrival: [0] nothing, [1 + good] that good.
_Arrivals = tuple[tuple[int, tuple[Move, ...]], ...]


@attrs.frozen(eq=False)
class _MoveTable:
    """Every route and feed move of one board, built once, so that listing
    moves builds no records."""

    routes: tuple[tuple[_Arrivals, ...], ...]
    """routes[village][kind]: where a route card of that kind leads."""
    feed: tuple[_Arrivals, ...]
    """feed[village]: where special feed leads."""


@functools.lru_cache(maxsize=8)
def _move_table(board: Board) -> _MoveTable:
    def arrivals(village: int, kind: RouteKind | None) -> _Arrivals:
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
    return _MoveTable(
        routes=tuple(tuple(arrivals(v, kind) for kind in RouteKind) for v in range(count)),
        feed=tuple(arrivals(v, None) for v in range(count)),
    )


def legal_moves(state: GameState) -> tuple[Move, ...]:
    """Every move the current player may make, each once, in a fixed order.

    Empty only once the game is over. Cards of the same kind are one move:
    holding two bridge cards does not list each bridge twice. In a turn the
    order is route moves, extra goods, special feed moves and goods,
    deliveries, and ending the turn last; while discards are due (T7) the
    moves are the cards that may be discarded, in hand order.

    >>> from troedler import new_game
    >>> [str(move) for move in legal_moves(new_game(2, seed=5))]
    ['discard 0', 'discard 1', 'discard 2']
    """
    try:
        phase = state.phase
        if phase is Phase.PLAY_TURNS:
            if state.turn.discards_due:
                return _discard_moves(state)
            return _turn_moves(state)
    except AttributeError:
        if isinstance(state, GameState):
            raise
        raise _not_a_state(state) from None
    if phase is Phase.TAKE_PILES:
        piles = state.dealer_piles
        if dealer_discards_first(state.rules, piles.count(None)):
            return _DISCARD[: len(piles)]
        return tuple(_TAKE[i] for i, pile in enumerate(piles) if pile is not None)
    return ()


def _not_a_state(value: object) -> ConfigurationError:
    # Asked only once reading .phase failed: no cost on the way of a real state.
    return ConfigurationError(f"expected a GameState, got {quote(value)}")


def _turn_moves(state: GameState) -> tuple[Move, ...]:
    player = state.players[cast(int, state.current_player)]
    board = state.board
    table = _move_table(board)
    village_goods = state.village_goods
    here = board.index(player.cart)
    moves: list[Move] = []
    add = moves.append

    last_kind = -1
    has_extra = False
    feed = 0
    requests: list[RequestCard] = []
    for card in player.hand:  # sorted: routes by kind, extra, feed, requests
        card_type = type(card)
        if card_type is RouteCard:
            kind = card.kind  # type: ignore[union-attr]
            if kind != last_kind:
                last_kind = kind
                for there, options in table.routes[here][kind]:
                    add(options[0])
                    for good in village_goods[there].kinds():
                        add(options[good + 1])
        elif card_type is SpecialFeedCard:
            feed += 1
        elif card_type is ExtraGoodCard:
            has_extra = True
        elif not requests or card != requests[-1]:
            requests.append(card)  # type: ignore[arg-type]

    here_kinds = village_goods[here].kinds()
    if has_extra:
        moves.extend(_EXTRA[good] for good in here_kinds)
    if feed:
        for there, options in table.feed[here]:
            add(options[0])
            for good in village_goods[there].kinds():
                add(options[good + 1])
        moves.extend(_FEED_EXTRA[good] for good in here_kinds)
    if requests and not village_goods[here] and player.cart not in state.turn.delivered_to:
        held = player.goods
        for request in requests:
            if not feed:
                if request.goods <= held:
                    add(PlayRequest.exact(request))
                continue
            size = len(request.goods)
            # Only goods up to the request's size matter, so cap for more cache hits.
            capped = tuple(n if n < size else size for n in held.counts)
            moves.extend(_request_moves(request, capped, min(feed, size)))
    add(_END)
    return tuple(moves)


def _discard_moves(state: GameState) -> tuple[Move, ...]:
    player = state.players[cast(int, state.current_player)]
    turn = state.turn
    return tuple(
        map(
            discard_move, actions.discard_options(player.hand, turn.discards_due, turn.last_discard)
        )
    )


@functools.lru_cache(maxsize=4096)
def _request_moves(
    request: RequestCard, held: tuple[int, ...], feed: int
) -> tuple[PlayRequest, ...]:
    """Every delivery of ``request`` from goods ``held`` with at most ``feed``
    replacements (T4, T5c); the exact delivery first."""
    shown = request.goods.counts
    found: list[tuple[int, tuple[int, ...]]] = []

    def extend(kind: int, counts: tuple[int, ...], left: int, cost: int) -> None:
        if kind == 6:
            if left == 0:
                found.append((cost, counts))
            return
        for n in range(min(held[kind], left), -1, -1):
            more = cost + max(0, shown[kind] - n)
            if more <= feed:
                extend(kind + 1, (*counts, n), left - n, more)

    extend(0, (), len(request.goods), 0)
    found.sort(key=lambda item: item[0])
    return tuple(PlayRequest(request, Goods.of_counts(counts)) for _cost, counts in found)


_MOVE_TYPES = frozenset(
    (
        TakePile,
        DiscardPile,
        PlayRoute,
        PlayExtraGood,
        PlayFeedMove,
        PlayFeedExtraGood,
        PlayRequest,
        EndTurn,
        DiscardCard,
    )
)


def _verify_mover(state: GameState, move: object, seat: object) -> None:
    """The checks every move passes first: it is a move, the game goes on
    (E1), and ``seat``, if given, is the one to move (R4, R5)."""
    if type(move) not in _MOVE_TYPES:
        if isinstance(move, str):
            raise IllegalMoveError(
                "T1", f"{quote(move)} is text, not a move: read it with parse_move(text, state)"
            )
        raise IllegalMoveError("T1", f"{quote(move)} is not a move")
    try:
        phase = state.phase
    except AttributeError:
        raise _not_a_state(state) from None
    if phase is Phase.GAME_OVER:
        raise IllegalMoveError("E1", "the game is over")
    # A bool or a float equal to the seat is not the seat.
    if seat is not None and (type(seat) is not int or seat != state.current_player):
        rule = "R4" if phase is Phase.TAKE_PILES else "R5"
        raise IllegalMoveError(
            rule, f"seat {state.current_player} is to move, not seat {quote(seat)}"
        )


def verify_move(state: GameState, move: Move, *, seat: int | None = None) -> None:
    """Raise :class:`IllegalMoveError` naming the rule unless ``move`` is allowed
    in ``state`` (for ``seat``, if given); the checks of :func:`apply_move`,
    without making the move.

    >>> from troedler import TakePile, new_game
    >>> verify_move(new_game(2, seed=5), TakePile(0))
    Traceback (most recent call last):
    ...
    troedler.errors.IllegalMoveError: R4: seat 0, the dealer, first discards one of the 3 piles
    """
    _verify_mover(state, move, seat)
    try:
        match move:
            case PlayRoute():
                actions.verify_play_route(state, move.kind, move.to, move.take)
            case EndTurn():
                actions.verify_end_turn(state)
            case TakePile():
                actions.verify_take_pile(state, move.pile)
            case PlayRequest():
                actions.verify_play_request(state, move.request, move.delivered)
            case DiscardCard():
                actions.verify_discard_card(state, move.card)
            case PlayFeedMove():
                actions.verify_play_feed_move(state, move.to, move.take)
            case PlayExtraGood():
                actions.verify_play_extra_good(state, move.good)
            case PlayFeedExtraGood():
                actions.verify_play_feed_extra_good(state, move.good)
            case DiscardPile():
                actions.verify_discard_dealer_pile(state, move.pile)
    except AttributeError:
        if isinstance(state, GameState):
            raise
        raise _not_a_state(state) from None


def apply_move(state: GameState, move: Move, *, seat: int | None = None) -> GameState:
    """The state after ``move``; :class:`IllegalMoveError` if the rules forbid it.

    ``seat``, if given, is who makes the move: a server passes it so that a
    move sent out of turn is refused. ``state`` itself is never changed. Each
    action checks its move with its ``verify_`` function (see
    :func:`verify_move`) before it makes it.
    """
    if seat is not None or type(move) not in _MOVE_TYPES:
        # Only then can the door's own checks fail: each action checks that
        # the game goes on (E1) and that ``state`` is a state.
        _verify_mover(state, move, seat)
    try:
        # One isinstance check per case, so the commonest moves come first.
        match move:
            case PlayRoute():
                return actions.play_route(state, move.kind, move.to, move.take)
            case EndTurn():
                return actions.end_turn(state)
            case TakePile():
                return actions.take_pile(state, move.pile)
            case PlayRequest():
                return actions.play_request(state, move.request, move.delivered)
            case DiscardCard():
                return actions.discard_card(state, move.card)
            case PlayFeedMove():
                return actions.play_feed_move(state, move.to, move.take)
            case PlayExtraGood():
                return actions.play_extra_good(state, move.good)
            case PlayFeedExtraGood():
                return actions.play_feed_extra_good(state, move.good)
            case DiscardPile():
                return actions.discard_dealer_pile(state, move.pile)
    except AttributeError:
        # A look-alike of a state (an Observation, say) fails somewhere inside.
        if isinstance(state, GameState):
            raise
        raise _not_a_state(state) from None
    raise AssertionError("unreachable: every move type has a case")  # pragma: no cover


def is_legal(state: GameState, move: Move) -> bool:
    """Whether ``move`` is allowed in ``state`` (:func:`verify_move` passes)."""
    try:
        verify_move(state, move)
    except IllegalMoveError:
        return False
    return True
