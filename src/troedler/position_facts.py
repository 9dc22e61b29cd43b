"""What a picture reads of a position: a :class:`~troedler.GameState` or an
:class:`~troedler.Observation`, each as it is.

A state knows every card, an observation only what its seat knows (None for
the rest): these functions read either without copying it into a record of
their own, so a picture of an observation can show nothing its seat does
not know. The board pictures (:mod:`troedler.svg`) and the terminal screen
(:mod:`troedler.text`) both read a position through them. The fields that
a state and an observation share by name (``board``, ``round``, ``dealer``,
``phase``, ``current_player``, ``village_goods``, ``dealer_piles``) are
read from the position itself.
"""

from __future__ import annotations

from troedler.core.cards import Card
from troedler.core.errors import ConfigurationError
from troedler.core.goods import Goods
from troedler.core.scoring import Tally, value_pile_tally
from troedler.core.state import GameState
from troedler.seat.observation import Observation

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
    return None if pile is None else value_pile_tally(pile, len(goods(position)[seat]))


def fulfilled(position: Position, seat: int) -> int | None:
    """How many goods requests the seat has fulfilled, if known."""
    counted = tally(position, seat)
    return None if counted is None else len(counted.request_points)
