"""Legal moves, and applying a move: the one door into the actions.

:func:`legal_moves` lists every move the rules allow, each once, in a fixed
order; :func:`apply_move` checks a move and carries it out. The two never
disagree: every listed move applies, and every move that applies is listed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations
from typing import Any, cast

from troedler import actions
from troedler.cards import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    RequestCard,
    RouteCard,
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


def legal_moves(state: GameState) -> tuple[Move, ...]:
    """Every move the current player may make, each once, in a fixed order.

    Empty only once the game is over. Cards of the same kind are one move:
    holding two bridge cards does not list each bridge twice.

    >>> from troedler import new_game
    >>> [str(move) for move in legal_moves(new_game(2, seed=5))]
    ['discard 0', 'discard 1', 'discard 2']
    """
    if state.phase is Phase.PLAY_TURNS:
        return tuple(_turn_moves(state))
    if state.phase is Phase.TAKE_PILES:
        open_piles = [i for i, pile in enumerate(state.dealer_piles) if pile is not None]
        if state.rules.two_player_rules and len(open_piles) == len(state.dealer_piles):
            return tuple(DiscardPile(i) for i in open_piles)
        return tuple(TakePile(i) for i in open_piles)
    return ()


def _turn_moves(state: GameState) -> Iterator[Move]:
    player = state.players[cast(int, state.current_player)]
    board = state.board
    hand = player.hand
    distinct = tuple(dict.fromkeys(hand))
    here = player.cart
    here_goods = state.goods_in(here)
    here_kinds = here_goods.kinds()
    has_feed = SPECIAL_FEED in hand

    for card in distinct:
        if isinstance(card, RouteCard):
            for to in board.neighbours(here, card.kind):
                for take in _takes(state, to):
                    yield PlayRoute(card.kind, to, take)
    if EXTRA_GOOD in hand:
        for good in here_kinds:
            yield PlayExtraGood(good)
    if has_feed:
        for to in board.neighbours(here):
            for take in _takes(state, to):
                yield PlayFeedMove(to, take)
        for good in here_kinds:
            yield PlayFeedExtraGood(good)
    if not here_goods and here not in state.turn.delivered_to:
        feed = hand.count(SPECIAL_FEED)
        for card in distinct:
            if isinstance(card, RequestCard):
                for delivered in _deliveries(card.goods, player.goods, feed):
                    yield PlayRequest(card, delivered)
    yield from _end_turns(hand, state.rules.hand_limit)


def _takes(state: GameState, village: str) -> tuple[Good | None, ...]:
    """What a cart arriving in ``village`` may take: nothing, or one good there."""
    return (None, *state.goods_in(village).kinds())


def _deliveries(shown: Goods, held: Goods, feed: int) -> Iterator[Goods]:
    """Every multiset of held goods that can fulfil a request showing ``shown``
    with at most ``feed`` replacements (T4, T5c); the exact delivery first."""
    size = len(shown)
    if len(held) < size:
        return
    found: list[tuple[int, tuple[int, ...]]] = []

    def extend(kind: int, counts: list[int], left: int) -> None:
        if kind == 6:
            if left == 0:
                cost = sum(max(0, s - c) for s, c in zip(shown.counts, counts, strict=True))
                if cost <= feed:
                    found.append((cost, tuple(counts)))
            return
        for n in range(min(held.counts[kind], left), -1, -1):
            counts.append(n)
            extend(kind + 1, counts, left - n)
            counts.pop()

    extend(0, [], size)
    found.sort(key=lambda item: item[0])
    for _cost, counts in found:
        yield Goods(counts)  # type: ignore[arg-type]


def _end_turns(hand: tuple[Card, ...], limit: int) -> Iterator[EndTurn]:
    required, _overflow = actions.hand_limit_discards(hand, limit)
    if required == 0:
        yield EndTurn()
        return
    others = tuple(card for card in hand if card != SPECIAL_FEED)
    seen = set()
    for chosen in combinations(others, required):
        if chosen not in seen:  # hands are sorted, so equal choices are equal tuples
            seen.add(chosen)
            yield EndTurn(chosen)


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
