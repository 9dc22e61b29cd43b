"""Legal moves, and applying a move: the one door into the actions.

:func:`legal_moves` lists every move the rules allow, each once, in a fixed
order; :func:`apply_move` checks a move and carries it out. The two never
disagree: every listed move applies, and every move that applies is listed.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable
from typing import Any, cast

import attrs

from troedler import actions
from troedler.board import Board, RouteKind
from troedler.cards import (
    SPECIAL_FEED,
    Card,
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
    hand_index,
)
from troedler.errors import IllegalMoveError
from troedler.goods import Good, Goods
from troedler.moves import (
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
from troedler.state import GameState, Phase

__all__ = ["apply_move", "is_legal", "legal_moves"]


MAX_PILES = 5
"""Dealer piles with the most players: four players + 1 (R2)."""

_TAKE = tuple(TakePile(i) for i in range(MAX_PILES))
_DISCARD = tuple(DiscardPile(i) for i in range(MAX_PILES))
_EXTRA = tuple(PlayExtraGood(good) for good in Good)
_FEED_EXTRA = tuple(PlayFeedExtraGood(good) for good in Good)
_END = EndTurn()
_SERIAL = operator.attrgetter("serial")

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
    holding two bridge cards does not list each bridge twice. The order is
    route moves, extra goods, special feed moves and goods, deliveries, and
    the ways to end the turn.

    >>> from troedler import new_game
    >>> [str(move) for move in legal_moves(new_game(2, seed=5))]
    ['discard 0', 'discard 1', 'discard 2']
    """
    if state.phase is Phase.PLAY_TURNS:
        return _turn_moves(state)
    if state.phase is Phase.TAKE_PILES:
        piles = state.dealer_piles
        if state.rules.two_player_rules and None not in piles:
            return _DISCARD[: len(piles)]
        return tuple(_TAKE[i] for i, pile in enumerate(piles) if pile is not None)
    return ()


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
    # The feed was counted above: no second pass over the hand.
    required, _overflow = actions.discards_required(len(player.hand), feed, state.rules.hand_limit)
    if required:
        moves.extend(_end_turn_moves(player.hand, feed, required))
    else:
        add(_END)
    return tuple(moves)


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


# One EndTurn per choice of discards ever listed, found by the cards' serial
# numbers: nearly every choice has been seen before. Bounded by the number of
# distinct discard multisets (tens of thousands for the default deck) and a cap.
_END_TURNS: dict[tuple[int, ...], EndTurn] = {}
_END_TURNS_LIMIT = 100_000

_Pick = Callable[[tuple[int, ...]], tuple[int, ...]]


@functools.lru_cache(maxsize=1024)
def _discard_picks(repeats: tuple[bool, ...], required: int) -> tuple[_Pick, ...]:
    """Every way to pick ``required`` of a sorted row of cards, each distinct
    choice once, as functions from the row to the picked items.

    ``repeats[i]`` says whether item ``i + 1`` equals item ``i``. Equal items
    stand together in a sorted row, so a distinct choice is one that takes
    a leading part of each run of equal items; taking those in the order of
    :func:`itertools.combinations` lists each choice where it first appears.
    """
    picks: list[_Pick] = []
    for positions in itertools.combinations(range(len(repeats) + 1), required):
        chosen = set(positions)
        if all(not (i and repeats[i - 1]) or i - 1 in chosen for i in positions):
            # A slice keeps a single pick a tuple; C all the way, no lambda.
            picks.append(
                operator.itemgetter(*positions)
                if required > 1
                else operator.itemgetter(slice(positions[0], positions[0] + 1))
            )
    return tuple(picks)


def _end_turn_moves(hand: tuple[Card, ...], feed: int, required: int) -> list[EndTurn]:
    """Every way to discard ``required`` route, request and extra-good cards
    of the sorted ``hand``, which holds ``feed`` special feed (T7), each
    choice once, in hand order."""
    serials = tuple(map(_SERIAL, hand))
    if feed:
        first_feed = hand_index(hand, SPECIAL_FEED)
        serials = serials[:first_feed] + serials[first_feed + feed :]
    picks = _discard_picks(tuple(map(operator.eq, serials, serials[1:])), required)
    choices = list(map(operator.call, picks, itertools.repeat(serials)))
    found: list[EndTurn | None] = list(map(_END_TURNS.get, choices))
    if not all(found):  # moves are always true: only a miss is false
        by_serial = {card.serial: card for card in hand}
        for i, choice in enumerate(choices):
            if found[i] is None:
                move = EndTurn._from_sorted(tuple(by_serial[s] for s in choice))
                if len(_END_TURNS) < _END_TURNS_LIMIT:
                    _END_TURNS[choice] = move
                found[i] = move
    return found  # type: ignore[return-value]


_ACTIONS: dict[type, Callable[[GameState, Any], GameState]] = {
    TakePile: lambda s, m: actions.take_pile(s, m.pile),
    DiscardPile: lambda s, m: actions.discard_pile(s, m.pile),
    PlayRoute: lambda s, m: actions.play_route(s, m.kind, m.to, m.take),
    PlayExtraGood: lambda s, m: actions.play_extra_good(s, m.good),
    PlayFeedMove: lambda s, m: actions.play_feed_move(s, m.to, m.take),
    PlayFeedExtraGood: lambda s, m: actions.play_feed_extra_good(s, m.good),
    PlayRequest: lambda s, m: actions.play_request(s, m.request, m.delivered),
    EndTurn: lambda s, m: actions.end_turn(s, m.discard),
}


def apply_move(state: GameState, move: Move, *, seat: int | None = None) -> GameState:
    """The state after ``move``; :class:`IllegalMoveError` if the rules forbid it.

    ``seat``, if given, is who makes the move: a server passes it so that a
    move sent out of turn is refused. ``state`` itself is never changed.
    """
    action = _ACTIONS.get(type(move))
    if action is None:
        raise IllegalMoveError("T1", f"{move!r} is not a move")
    if state.phase is Phase.GAME_OVER:
        raise IllegalMoveError("E1", "the game is over")
    if seat is not None and seat != state.current_player:
        rule = "R4" if state.phase is Phase.TAKE_PILES else "R5"
        raise IllegalMoveError(rule, f"seat {state.current_player} is to move, not seat {seat!r}")
    return action(state, move)


def is_legal(state: GameState, move: Move) -> bool:
    """Whether ``move`` is allowed in ``state``."""
    try:
        apply_move(state, move)
    except IllegalMoveError:
        return False
    return True
