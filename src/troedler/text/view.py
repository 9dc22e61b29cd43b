"""What the terminal shows: the facts of a game state or of one seat's observation.

A picture of a :class:`~troedler.GameState` shows everything on and around
the table, every hand included; a picture of an
:class:`~troedler.Observation` shows only what that seat knows, and nothing
it does not know ever reaches the picture: :func:`view_of` drops it here.
"""

from __future__ import annotations

import attrs

from troedler.board import Board
from troedler.cards import Card, RequestCard, SpecialFeedCard
from troedler.errors import ConfigurationError
from troedler.goods import Goods
from troedler.rules import Rules
from troedler.scoring import Tally
from troedler.state import GameState, Phase
from troedler.svg.style import SEAT_COLOURS
from troedler.views import Observation

__all__ = ["View", "view_of"]


@attrs.frozen
class View:
    """The drawable facts of one moment of a game."""

    board: Board
    rules: Rules
    round: int
    dealer: int
    phase: Phase
    current_player: int | None
    village_goods: tuple[Goods, ...]
    carts: tuple[str, ...]
    goods: tuple[Goods, ...]
    hands: tuple[tuple[Card, ...] | None, ...]
    """Each seat's hand, or None where the viewer does not know it."""
    hand_sizes: tuple[int, ...]
    value_piles: tuple[tuple[Card, ...] | None, ...]
    value_pile_sizes: tuple[int, ...]
    dealer_piles: tuple[tuple[Card | None, ...] | None, ...]
    discard_top: Card | None
    discard_size: int
    game_round_pile_size: int
    played: tuple[Card, ...]
    delivered_to: tuple[str, ...]
    discards_due: int
    """Cards the player to move must still discard to keep to the hand limit (T7)."""
    seat: int | None
    """The seat whose knowledge is drawn; None for the whole state."""
    recall: str | None

    @property
    def num_players(self) -> int:
        """How many seats the game has."""
        return len(self.carts)

    def tally(self, seat: int) -> Tally | None:
        """The seat's scoring tally so far, or None if its value pile is not known."""
        pile = self.value_piles[seat]
        if pile is None:
            return None
        return Tally(
            feed_used=sum(1 for card in pile if isinstance(card, SpecialFeedCard)),
            goods_held=len(self.goods[seat]),
            request_points=tuple(card.points for card in pile if isinstance(card, RequestCard)),
        )

    def seat_colour(self, seat: int) -> str:
        """The colour of ``seat``: that of its start village."""
        start = self.board.start_village(seat, self.num_players)
        return SEAT_COLOURS[self.board.start_villages.index(start) % len(SEAT_COLOURS)]

    def fulfilled(self, seat: int) -> int | None:
        """How many goods requests the seat has fulfilled, if known."""
        pile = self.value_piles[seat]
        return None if pile is None else sum(isinstance(c, RequestCard) for c in pile)


def view_of(position: GameState | Observation) -> View:
    """The facts a picture of ``position`` may show."""
    if isinstance(position, GameState):
        players = position.players
        return View(
            board=position.board,
            rules=position.rules,
            round=position.round,
            dealer=position.dealer,
            phase=position.phase,
            current_player=position.current_player,
            village_goods=position.village_goods,
            carts=tuple(p.cart for p in players),
            goods=tuple(p.goods for p in players),
            hands=tuple(p.hand for p in players),
            hand_sizes=tuple(len(p.hand) for p in players),
            value_piles=tuple(p.value_pile for p in players),
            value_pile_sizes=tuple(len(p.value_pile) for p in players),
            dealer_piles=position.dealer_piles,
            discard_top=position.discard_pile.cards[-1] if position.discard_pile.cards else None,
            discard_size=len(position.discard_pile.cards),
            game_round_pile_size=len(position.game_round_pile),
            played=position.turn.played,
            delivered_to=position.turn.delivered_to,
            discards_due=position.turn.discards_due,
            seat=None,
            recall=None,
        )
    if isinstance(position, Observation):
        o = position
        return View(
            board=o.board,
            rules=o.rules,
            round=o.round,
            dealer=o.dealer,
            phase=o.phase,
            current_player=o.current_player,
            village_goods=o.village_goods,
            carts=o.carts,
            goods=o.goods,
            hands=o.hands,
            hand_sizes=o.hand_sizes,
            value_piles=o.value_piles,
            value_pile_sizes=o.value_pile_sizes,
            dealer_piles=o.dealer_piles,
            discard_top=o.discard_pile[-1] if o.discard_pile else None,
            discard_size=len(o.discard_pile),
            game_round_pile_size=o.game_round_pile_size,
            played=o.played,
            delivered_to=o.delivered_to,
            discards_due=o.discards_due,
            seat=o.seat,
            recall=o.recall,
        )
    raise ConfigurationError(
        f"expected a GameState or an Observation to draw, got {type(position).__name__}"
    )
