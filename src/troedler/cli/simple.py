"""A simple built-in player: one step of look-ahead on a hand-made evaluation.

It sees the whole state and plays the move whose result it likes best, ending
the turn when nothing improves its position. Good enough to show a game; the
bundled bots are meant to replace it.
"""

from __future__ import annotations

from troedler.cards import SPECIAL_FEED, Card, RequestCard, RouteCard
from troedler.goods import Goods
from troedler.legal import apply_move, legal_moves
from troedler.moves import DiscardPile, EndTurn, Move, TakePile
from troedler.state import GameState, Phase

__all__ = ["choose_simple_move", "evaluate"]


def evaluate(state: GameState, seat: int) -> float:
    """How much ``seat`` likes ``state``: points, goods it needs, damage."""
    player = state.players[seat]
    played = state.turn.played if state.current_player == seat else ()
    fulfilled = [c for c in player.value_pile + played if isinstance(c, RequestCard)]
    feed_used = player.feed_used + played.count(SPECIAL_FEED)
    wanted = Goods()
    for card in player.hand:
        if isinstance(card, RequestCard):
            wanted = wanted | card.goods
    useful = len(wanted) - len(wanted - player.goods)
    spare = len(player.goods) - useful
    here = player.cart
    ready = (
        not state.goods_in(here)
        and here not in state.turn.delivered_to
        and any(isinstance(c, RequestCard) and c.goods <= player.goods for c in player.hand)
    )
    feed_in_hand = player.hand.count(SPECIAL_FEED)
    return (
        (5.0 if ready else 0.0)
        - 3.0 * max(0, feed_in_hand - 3)
        + 10.0 * sum(card.points for card in fulfilled)
        + 3.0 * len(fulfilled)
        - 7.0 * feed_used
        + 3.0 * useful
        - 0.5 * spare
        + sum(_card_value(card) for card in player.hand)
    )


def _card_value(card: Card) -> float:
    if isinstance(card, RequestCard):
        return 2.0 + card.points
    if isinstance(card, RouteCard):
        return 1.0
    if card == SPECIAL_FEED:
        return 2.0
    return 1.5


def _pile_value(cards: tuple[Card, ...]) -> float:
    return sum(_card_value(card) for card in cards)


def choose_simple_move(state: GameState) -> Move:
    """The simple player's move for whoever is to move in ``state``."""
    moves = legal_moves(state)
    seat = state.current_player
    if seat is None or not moves:
        raise ValueError("the game is over")
    if state.phase is Phase.TAKE_PILES:

        def pile_value(move: Move) -> float:
            assert isinstance(move, (TakePile, DiscardPile))
            return _pile_value(state.dealer_piles[move.pile] or ())

        if isinstance(moves[0], DiscardPile):
            return min(moves, key=pile_value)
        return max(moves, key=pile_value)
    now = evaluate(state, seat)
    best: Move | None = None
    best_value = now
    for move in moves:
        if isinstance(move, EndTurn):
            continue
        value = evaluate(apply_move(state, move), seat)
        if value > best_value + 0.25:
            best, best_value = move, value
    if best is not None:
        return best
    ends = [move for move in moves if isinstance(move, EndTurn)]
    return min(ends, key=lambda move: sum(_card_value(card) for card in move.discard))
