"""Legal moves, and applying a move: the one door into the actions.

:func:`legal_moves` lists every move the rules allow, each once, in a fixed
order; :func:`apply_move` checks a move and carries it out. The two never
disagree: every listed move applies, and every move that applies is listed.
"""

from __future__ import annotations

import functools

from troedler.core import actions
from troedler.core.cards import (
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
)
from troedler.core.errors import ConfigurationError, IllegalMoveError, quote
from troedler.core.goods import GOOD_KINDS, Goods, kinds_of
from troedler.core.moves import (
    DISCARD_PILE_MOVES,
    END_TURN,
    EXTRA_GOOD_MOVES,
    FEED_EXTRA_GOOD_MOVES,
    TAKE_PILE_MOVES,
    Move,
    PlayRequest,
    board_moves,
    discard_move,
)
from troedler.core.rulebook import MAX_PLAYERS, dealer_discards_first, discard_options, pile_count
from troedler.core.state import GameState, Phase, Position

__all__ = ["apply_move", "is_legal", "legal_moves", "verify_move"]

MAX_PILES = pile_count(MAX_PLAYERS)
"""Dealer piles with the most players: four players + 1 (R2)."""


def legal_moves(state: Position) -> tuple[Move, ...]:
    """Every move the current player may make, each once, in a fixed order.

    Empty only once the game is over, and while chance decides. Of a seat's
    view (:func:`~troedler.observe`), the seat's own moves when the decision
    is its own, and none while another seat decides, whose hand it may not
    know. Cards of the same kind are one move:
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
        viewer = state.viewer
        if viewer is not None and viewer != state.current_player:
            return ()  # whoever decides may hold cards the viewer does not know
        if phase is Phase.PLAY_TURNS:
            if state.turn.discards_due:
                return _discard_moves(state)
            return _turn_moves(state)
    except AttributeError:
        if isinstance(state, Position):
            raise
        raise _not_a_state(state) from None
    if phase is Phase.TAKE_PILES:
        piles = state.dealer_piles
        if dealer_discards_first(state.rules, piles.count(None)):
            return DISCARD_PILE_MOVES[: len(piles)]
        return tuple(TAKE_PILE_MOVES[i] for i, pile in enumerate(piles) if pile is not None)
    return ()


def _not_a_state(value: object) -> ConfigurationError:
    # Asked only once reading .phase failed: no cost on the way of a real state.
    return ConfigurationError(f"expected a GameState, got {quote(value)}")


def _turn_moves(state: Position) -> tuple[Move, ...]:
    player = state.players[state.current_player]  # type: ignore[index]  # a player decides
    board = state.board
    table = board_moves(board)
    village_goods = state.village_goods
    here = board.positions[player.cart]
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
                    for good in kinds_of(village_goods[there]):
                        add(options[good + 1])
        elif card_type is SpecialFeedCard:
            feed += 1
        elif card_type is ExtraGoodCard:
            has_extra = True
        elif not requests or card.sort_key != requests[-1].sort_key:
            requests.append(card)  # type: ignore[arg-type]

    here_kinds = kinds_of(village_goods[here])
    if has_extra:
        moves.extend(EXTRA_GOOD_MOVES[good] for good in here_kinds)
    if feed:
        for there, options in table.feed[here]:
            add(options[0])
            for good in kinds_of(village_goods[there]):
                add(options[good + 1])
        moves.extend(FEED_EXTRA_GOOD_MOVES[good] for good in here_kinds)
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
    add(END_TURN)
    return tuple(moves)


def _discard_moves(state: Position) -> tuple[Move, ...]:
    player = state.players[state.current_player]  # type: ignore[index]  # a player decides
    turn = state.turn
    return tuple(
        map(discard_move, discard_options(player.hand, turn.discards_due, turn.last_discard))
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
        if kind == GOOD_KINDS:
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


_RULES = actions.MOVE_RULES


def _verify_mover(state: GameState, move: object, seat: object) -> None:
    """The checks every move passes first, at the door: it is a move, ``state``
    is a state, the game goes on (E1), and ``seat``, if given, is the one to
    move (R4, R5)."""
    if type(move) not in _RULES:
        if isinstance(move, str):
            raise IllegalMoveError(
                "T1", f"{quote(move)} is text, not a move: read it with parse_move(text, state)"
            )
        raise IllegalMoveError("T1", f"{quote(move)} is not a move")
    phase = actions.verify_game_on(state).phase
    # A bool or a float equal to the seat is not the seat.
    if seat is not None and (type(seat) is not int or seat != state.current_player):
        rule = "R4" if phase is Phase.TAKE_PILES else "R5"
        raise IllegalMoveError(
            rule, f"seat {state.current_player} is to move, not seat {quote(seat)}"
        )


def verify_move(state: GameState, move: Move, *, seat: int | None = None) -> Move:
    """The checked ``move``, made of the engine's own objects, if it is allowed
    in ``state`` (for ``seat``, if given); else :class:`IllegalMoveError`
    naming the rule. The checks of :func:`apply_move`, without making the move.

    >>> from troedler import TakePile, new_game
    >>> verify_move(new_game(2, seed=5), TakePile(0))
    Traceback (most recent call last):
    ...
    troedler.core.errors.IllegalMoveError: R4: seat 0, the dealer, first discards one of the 3 piles
    """
    _verify_mover(state, move, seat)
    check, _act = _RULES[type(move)]
    return check(state, move)


def apply_move(state: GameState, move: Move, *, seat: int | None = None) -> GameState:
    """The state after ``move``; :class:`IllegalMoveError` if the rules forbid it.

    ``seat``, if given, is who makes the move: a server passes it so that a
    move sent out of turn is refused. ``state`` itself is never changed. The
    move's ``verify_`` function (see :func:`verify_move`) checks it and gives
    the checked move, which its action applies.
    """
    rules = _RULES.get(type(move))
    if rules is None or seat is not None:
        # Only then can the door's own checks fail: each verify_ function
        # checks that ``state`` is a state and that the game goes on (E1).
        _verify_mover(state, move, seat)
        rules = _RULES[type(move)]
    check, act = rules
    return act(state, check(state, move))


def is_legal(state: GameState, move: Move) -> bool:
    """Whether ``move`` is allowed in ``state`` (:func:`verify_move` passes)."""
    try:
        verify_move(state, move)
    except IllegalMoveError:
        return False
    return True
