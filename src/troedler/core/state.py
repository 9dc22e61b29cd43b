"""The game state: immutable records of everything on and around the table.

A :class:`GameState` is never changed; every action returns a new one that
shares the parts it did not touch. Per-seat data is a tuple indexed by seat
(seats are numbered clockwise from 0); per-village data is a tuple in the
order of ``board.villages``. In every pile kept as a tuple, the last card is
the top card.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable
from typing import Any, Literal

import attrs

from troedler.core.board import Board
from troedler.core.cards import Card, CardCatalogue, RequestCard
from troedler.core.errors import ConfigurationError, quote
from troedler.core.goods import Goods
from troedler.core.pile import Pile
from troedler.core.rulebook import Rules, value_pile_parts

__all__ = [
    "NO_TURN",
    "RECALLS",
    "GameState",
    "Phase",
    "PlayerState",
    "Position",
    "Recall",
    "Turn",
    "next_state",
    "position_fields",
    "with_player",
]


class Phase(enum.Enum):
    """Where the game stands (R1).

    Setting up and forming the dealer piles take no decision: a seeded game
    does them at once and never stops in those phases. A game with explicit
    chance (:func:`troedler.core.chance.new_explicit_game`) waits in them for
    each good or card that chance turns up.
    """

    SET_UP = "set up"
    FORM_PILES = "form piles"
    TAKE_PILES = "take piles"
    PLAY_TURNS = "play turns"
    GAME_OVER = "game over"

    @property
    def is_chance(self) -> bool:
        """Whether chance, not a player, decides what happens next."""
        return self is Phase.SET_UP or self is Phase.FORM_PILES


# Records built at every move carry no weak-reference slot: they are values,
# made by the million in a search, and the slot would cost 8 bytes each.
@attrs.frozen(weakref_slot=False)
class PlayerState:
    """One player's cart, hand, collected goods and value pile."""

    cart: str
    """The village where the player's cart stands."""
    hand: tuple[Card, ...]
    """Cards in hand, in :func:`~troedler.core.cards.card_sort_key` order."""
    goods: Goods
    """Goods the player has collected and not yet delivered."""
    value_pile: tuple[Card, ...] = ()
    """Used special feed and fulfilled goods requests (T6), in hand order: the
    pile lies face down and its order plays no part."""

    @property
    def fulfilled_requests(self) -> tuple[RequestCard, ...]:
        """The goods requests on the value pile, in its order (T6, E5)."""
        return value_pile_parts(self.value_pile)[1]

    @property
    def feed_used(self) -> int:
        """Special feed on the value pile: the feed part of the damage (E2)."""
        return value_pile_parts(self.value_pile)[0]


@attrs.frozen(weakref_slot=False)
class Turn:
    """What the current turn has done so far."""

    played: tuple[Card, ...] = ()
    """Cards played this turn, waiting to be put away when it ends (T6)."""
    delivered_to: tuple[str, ...] = ()
    """Villages that received a goods request this turn (T4)."""
    discards_due: int = 0
    """Cards still to be discarded down to the hand limit (T7). Above 0 the
    turn has ended, its played cards are put away, and the same player must
    play that many :class:`~troedler.DiscardCard` moves."""
    last_discard: Card | None = None
    """The card discarded last while discards are due: discards go in hand
    order, so the next one is this card or a later one (T7)."""


NO_TURN = Turn()


Recall = Literal["perfect", "table"]
"""What a seat remembers (I1, I3): everything it saw, or what lies on the table now."""
RECALLS: tuple[Recall, ...] = typing.get_args(Recall)
"""Each :data:`Recall`, in the order of :data:`Recall`."""


# repr=False: the generated repr lists every card and runs to 12,000 characters.
@attrs.frozen(weakref_slot=False, repr=False)
class Position:
    """A game at one moment as someone knows it: the fields a whole
    :class:`GameState` and a seat's :class:`~troedler.Observation` share.

    Whatever reads a position (the pictures, the terminal screen, the
    tensors, a bot) reads these fields and properties alike of either. In a
    seat's view every card the seat does not know is
    :data:`~troedler.core.cards.UNKNOWN`, in its place: the stacks keep their
    sizes and order, so a picture shows its back. A position is never built
    as such: build a state with :func:`troedler.new_game` and a view with
    :func:`troedler.observe`.
    """

    rules: Rules
    board: Board
    cards: CardCatalogue
    shuffles: int
    """How many shuffles the game has made so far."""
    round: int
    dealer: int
    """The seat that holds the horse this round."""
    phase: Phase
    current_player: int | None
    """The seat whose decision the game waits for; None once the game is
    over, and while chance decides (set-up, forming piles)."""
    game_round_pile: tuple[Card, ...]
    """The face-down game-round pile, bottom to top: the next card turned up
    is chance's (see :mod:`troedler.core.chance`)."""
    dealer_piles: tuple[tuple[Card, ...] | None, ...]
    """This round's dealer piles while they are formed and taken; None marks a
    pile that is gone (taken or discarded). Empty outside those phases."""
    discard_pile: Pile
    """The face-up discard pile; ``discard_pile.cards`` lists it bottom to top."""
    village_goods: tuple[Goods, ...]
    players: tuple[PlayerState, ...]
    turn: Turn

    @property
    def viewer(self) -> int | None:
        """The seat whose knowledge this is; None for a whole state, which
        knows everything."""
        return None

    @property
    def recall(self) -> Recall | None:
        """The viewer's recall; None for a whole state."""
        return None

    def knows_hand(self, seat: int) -> bool:
        """Whether the hand and the value pile of ``seat`` are known here (I1, I3)."""
        return True

    @property
    def num_players(self) -> int:
        """How many players sit at the table."""
        return len(self.players)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (E1)."""
        return self.phase is Phase.GAME_OVER

    def _repr_svg_(self) -> str:
        """The position as a picture, for Jupyter: a view draws nothing more
        than its seat knows."""
        # Imported here, not at the top: the core never imports the pictures
        # package, which sits on top of it (python-chess does the same).
        from troedler.svg import board  # noqa: PLC0415

        return board(self, size=900)

    def goods_in(self, village: str) -> Goods:
        """The goods lying in ``village``; ConfigurationError if the board has no such village."""
        if not self.board.has_village(village):
            raise ConfigurationError(f"no village called {quote(village)} on this board")
        return self.village_goods[self.board.index(village)]

    def pile_tops(self) -> tuple[Card | None, ...]:
        """The visible top card of each dealer pile (None: gone or empty)."""
        return tuple(pile[-1] if pile else None for pile in self.dealer_piles)


@attrs.frozen(weakref_slot=False, repr=False)
class GameState(Position):
    """The whole game at one moment. Build one with :func:`troedler.new_game`.

    The engine builds a state or two at every move, so building one checks
    nothing: a state made by hand (with :func:`attrs.evolve`, say) is
    checked by :func:`check_invariants`, as the readers and writers do.
    """

    seed: int
    """The game's seed: every shuffle derives from it (and from ``shuffles``)."""

    # A value, not the property: read on every legal_moves, it costs no call.
    viewer = None

    def __repr__(self) -> str:
        to_move = "" if self.current_player is None else f", seat {self.current_player} to move"
        return (
            f"<GameState: {self.num_players} players, round {self.round}, "
            f"{self.phase.value}{to_move}>"
        )


def next_state(
    state: GameState,
    *,
    current_player: int | None,
    turn: Turn,
    players: tuple[PlayerState, ...] | None = None,
    village_goods: tuple[Goods, ...] | None = None,
    dealer_piles: tuple[tuple[Card, ...] | None, ...] | None = None,
    discard_pile: Pile | None = None,
    game_round_pile: tuple[Card, ...] | None = None,
    shuffles: int | None = None,
    phase: Phase | None = None,
    dealer: int | None = None,
    round_number: int | None = None,
) -> GameState:
    """The state after ``state``: who decides next and the turn so far, and
    whatever else changed; the rest is shared with ``state``.

    The one place the rules build a state from the one before, and much
    cheaper than :func:`attrs.evolve` on the hot path: each field is set
    through its own slot, as attrs' ``__init__`` would set it, but without
    looking the field up by name (``object.__setattr__``) for every one of
    them. A state has no validators to skip, and
    ``tests/test_values.py`` checks that this builds what ``GameState(...)``
    builds, field for field.
    """
    new = _new(GameState)
    _set_rules(new, state.rules)
    _set_board(new, state.board)
    _set_cards(new, state.cards)
    _set_shuffles(new, state.shuffles if shuffles is None else shuffles)
    _set_round(new, state.round if round_number is None else round_number)
    _set_dealer(new, state.dealer if dealer is None else dealer)
    _set_phase(new, state.phase if phase is None else phase)
    _set_current_player(new, current_player)
    _set_game_round_pile(new, state.game_round_pile if game_round_pile is None else game_round_pile)
    _set_dealer_piles(new, state.dealer_piles if dealer_piles is None else dealer_piles)
    _set_discard_pile(new, state.discard_pile if discard_pile is None else discard_pile)
    _set_village_goods(new, state.village_goods if village_goods is None else village_goods)
    _set_players(new, state.players if players is None else players)
    _set_turn(new, turn)
    _set_seed(new, state.seed)
    return new


_new = object.__new__


def _slot_setter(record: type, field: str) -> Callable[[Any, Any], None]:
    """What sets ``field`` of a ``record`` in its slot, as attrs' ``__init__``
    does, without looking the field up by name each time."""
    setter: Callable[[Any, Any], None] = getattr(record, field).__set__
    return setter


# Each field's own slot of GameState, set directly (see next_state).
_set_rules = _slot_setter(GameState, "rules")
_set_board = _slot_setter(GameState, "board")
_set_cards = _slot_setter(GameState, "cards")
_set_shuffles = _slot_setter(GameState, "shuffles")
_set_round = _slot_setter(GameState, "round")
_set_dealer = _slot_setter(GameState, "dealer")
_set_phase = _slot_setter(GameState, "phase")
_set_current_player = _slot_setter(GameState, "current_player")
_set_game_round_pile = _slot_setter(GameState, "game_round_pile")
_set_dealer_piles = _slot_setter(GameState, "dealer_piles")
_set_discard_pile = _slot_setter(GameState, "discard_pile")
_set_village_goods = _slot_setter(GameState, "village_goods")
_set_players = _slot_setter(GameState, "players")
_set_turn = _slot_setter(GameState, "turn")
_set_seed = _slot_setter(GameState, "seed")


def with_player(
    players: tuple[PlayerState, ...],
    seat: int,
    *,
    hand: tuple[Card, ...],
    cart: str | None = None,
    goods: Goods | None = None,
    value_pile: tuple[Card, ...] | None = None,
) -> tuple[PlayerState, ...]:
    """``players`` with ``seat``'s player after a move: their ``hand`` and
    whatever else changed; the rest is shared.

    The one place the rules build a player from the one before, as
    :func:`next_state` is for a state: a field added to
    :class:`PlayerState` is carried over here.
    """
    player = players[seat]
    moved = _new(PlayerState)  # each field through its own slot, as next_state does
    _set_cart(moved, player.cart if cart is None else cart)
    _set_hand(moved, hand)
    _set_goods(moved, player.goods if goods is None else goods)
    _set_value_pile(moved, player.value_pile if value_pile is None else value_pile)
    return players[:seat] + (moved,) + players[seat + 1 :]


# Each field's own slot of PlayerState, set directly (see with_player).
_set_cart = _slot_setter(PlayerState, "cart")
_set_hand = _slot_setter(PlayerState, "hand")
_set_goods = _slot_setter(PlayerState, "goods")
_set_value_pile = _slot_setter(PlayerState, "value_pile")


def position_fields(position: Position) -> dict[str, Any]:
    """The fields of ``position`` that every :class:`Position` has, by name:
    to build a record of another kind of position from it, so that a field
    added to :class:`Position` is carried over."""
    return {name: getattr(position, name) for name in _POSITION_FIELDS}


_POSITION_FIELDS = tuple(field.name for field in attrs.fields(Position))
