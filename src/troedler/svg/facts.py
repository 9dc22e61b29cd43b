"""What a picture reads of a position: a :class:`~troedler.GameState` or an
:class:`~troedler.Observation`, each as it is.

A state knows every card, an observation only what its seat knows (None for
the rest): these functions read either without copying it into a record of
their own, so a picture of an observation can show nothing its seat does
not know.
"""

from __future__ import annotations

from troedler.cards import Card, RequestCard, SpecialFeedCard
from troedler.errors import ConfigurationError
from troedler.goods import Goods
from troedler.scoring import Tally
from troedler.state import GameState
from troedler.svg.style import SEAT_COLOURS
from troedler.views import Observation

__all__ = [
    "Position",
    "carts",
    "check_position",
    "discard",
    "fulfilled",
    "goods",
    "hand",
    "hand_size",
    "num_players",
    "round_pile_size",
    "seat_colour",
    "tally",
    "turn",
    "value_pile",
    "viewer",
]

Position = GameState | Observation


def check_position(position: object) -> Position:
    """``position`` if a picture can be drawn of it; else :class:`ConfigurationError`."""
    if isinstance(position, GameState | Observation):
        return position
    raise ConfigurationError(
        f"expected a GameState or an Observation to draw, got {type(position).__name__}"
    )


def num_players(position: Position) -> int:
    """How many seats the game has."""
    return len(position.carts) if isinstance(position, Observation) else len(position.players)


def carts(position: Position) -> tuple[str, ...]:
    """Where each seat's cart stands."""
    if isinstance(position, Observation):
        return position.carts
    return tuple(p.cart for p in position.players)


def goods(position: Position) -> tuple[Goods, ...]:
    """Each seat's goods: all see them."""
    if isinstance(position, Observation):
        return position.goods
    return tuple(p.goods for p in position.players)


def hand(position: Position, seat: int) -> tuple[Card, ...] | None:
    """The seat's hand, or None where the viewer does not know it."""
    if isinstance(position, Observation):
        return position.hands[seat]
    return position.players[seat].hand


def hand_size(position: Position, seat: int) -> int:
    """How many cards the seat holds: all can count them."""
    if isinstance(position, Observation):
        return position.hand_sizes[seat]
    return len(position.players[seat].hand)


def value_pile(position: Position, seat: int) -> tuple[Card, ...] | None:
    """The seat's value pile, or None where the viewer does not know it."""
    if isinstance(position, Observation):
        return position.value_piles[seat]
    return position.players[seat].value_pile


def discard(position: Position) -> tuple[Card | None, int]:
    """The discard pile's top card (None if empty) and its size."""
    if isinstance(position, Observation):
        pile = position.discard_pile
        return (pile[-1] if pile else None), len(pile)
    cards = position.discard_pile.cards
    return (cards[-1] if cards else None), len(cards)


def round_pile_size(position: Position) -> int:
    """How many cards the face-down game-round pile holds."""
    if isinstance(position, Observation):
        return position.game_round_pile_size
    return len(position.game_round_pile)


def turn(position: Position) -> tuple[tuple[Card, ...], tuple[str, ...], int]:
    """This turn's cards played, villages delivered to and discards still due (T7)."""
    if isinstance(position, Observation):
        return position.played, position.delivered_to, position.discards_due
    t = position.turn
    return t.played, t.delivered_to, t.discards_due


def viewer(position: Position) -> tuple[int | None, str | None]:
    """The seat whose knowledge is drawn and its recall; (None, None) for a whole state."""
    if isinstance(position, Observation):
        return position.seat, position.recall
    return None, None


def tally(position: Position, seat: int) -> Tally | None:
    """The seat's scoring tally so far, or None if its value pile is not known."""
    pile = value_pile(position, seat)
    if pile is None:
        return None
    return Tally(
        feed_used=sum(1 for card in pile if isinstance(card, SpecialFeedCard)),
        goods_held=len(goods(position)[seat]),
        request_points=tuple(card.points for card in pile if isinstance(card, RequestCard)),
    )


def fulfilled(position: Position, seat: int) -> int | None:
    """How many goods requests the seat has fulfilled, if known."""
    pile = value_pile(position, seat)
    return None if pile is None else sum(isinstance(c, RequestCard) for c in pile)


def seat_colour(position: Position, seat: int) -> str:
    """The colour of ``seat``: that of its start village."""
    board = position.board
    start = board.start_village(seat, num_players(position))
    return SEAT_COLOURS[board.start_villages.index(start) % len(SEAT_COLOURS)]
