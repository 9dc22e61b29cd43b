"""What one seat knows of a game (I1-I3): the same record as the state, with
what the seat does not know marked unknown.

:func:`observe` gives an :class:`Observation`: a :class:`~troedler.Position`
like the :class:`~troedler.GameState` it was made from, with every card the
seat does not know replaced by :data:`~troedler.core.cards.UNKNOWN` in its
place, and no seed. With ``recall="perfect"`` the seat knows everything it
ever saw (I1): every hand and value pile, every card laid on a dealer pile
or the discard pile, except the set-up pile, seen from above only (I2). With
``recall="table"`` it knows what lies visible now (I3): its own hand and
value pile, and the top card of each stack. Neither knows the order of the
face-down game-round pile, nor the seed, which would give it away.

Whatever reads a position reads an observation the same way; a picture of
one shows the back of each card its seat does not know.
"""

from __future__ import annotations

import attrs

from troedler.core.cards import UNKNOWN, Card
from troedler.core.errors import ConfigurationError, quote
from troedler.core.pile import Pile
from troedler.core.rulebook import setup_pile_hidden
from troedler.core.state import (
    RECALLS,
    GameState,
    Phase,
    PlayerState,
    Position,
    Recall,
    position_fields,
)

__all__ = [
    "Observation",
    "check_recall",
    "hidden_setup_cards",
    "observe",
    "seat_knows",
]


@attrs.frozen(weakref_slot=False, repr=False)
class Observation(Position):
    """What seat :attr:`seat` knows of a game at one moment, with ``recall``.

    The fields of a :class:`~troedler.GameState` but the seed, read the same
    way; each card the seat does not know is
    :data:`~troedler.core.cards.UNKNOWN`. Build one with
    :func:`~troedler.observe`; :func:`~troedler.determinize` deals its
    unknown cards into a full state.
    """

    seat: int
    """The seat whose knowledge this is."""
    recall: Recall
    """``"perfect"``: everything the seat saw (I1); ``"table"``: what lies
    visible now (I3)."""

    @property
    def viewer(self) -> int:
        """The seat whose knowledge this is: :attr:`seat`."""
        return self.seat

    def knows_hand(self, seat: int) -> bool:
        """Whether the hand and the value pile of ``seat`` are known (I1, I3)."""
        return seat_knows(self.seat, seat, self.recall == "perfect")

    def __repr__(self) -> str:
        to_move = "" if self.current_player is None else f", seat {self.current_player} to move"
        return (
            f"<Observation of seat {self.seat} ({self.recall} recall): {self.num_players} players, "
            f"round {self.round}, {self.phase.value}{to_move}>"
        )


def seat_knows(seat: int, other: int, perfect: bool) -> bool:
    """Whether ``seat`` knows the hand and the value pile of ``other`` (I1, I3).

    A seat knows its own; with perfect recall it knows everyone's, having
    seen every card go into them.
    """
    return perfect or other == seat


def check_recall(recall: object) -> Recall:
    """``recall`` if it is one; :class:`ConfigurationError` otherwise."""
    # A tuple, not a set: an unhashable value is simply not a recall.
    if recall in RECALLS:
        return recall
    raise ConfigurationError(f"recall is 'perfect' or 'table', not {quote(recall)}")


def hidden_setup_cards(position: Position) -> int:
    """How many cards at the bottom of the discard pile are still the set-up
    pile, which every seat saw only from above (S5, I2): all of the pile
    while chance lays it, then :func:`~troedler.core.rulebook.setup_pile_hidden`."""
    if position.phase is Phase.SET_UP:
        return len(position.discard_pile)
    return setup_pile_hidden(position.rules, position.shuffles, len(position.discard_pile))


def _unknown(count: int) -> tuple[Card, ...]:
    return (UNKNOWN,) * count


def _hidden(player: PlayerState) -> PlayerState:
    """``player`` with the hand and the value pile unknown: only their sizes show."""
    hand, value_pile = _unknown(len(player.hand)), _unknown(len(player.value_pile))
    return attrs.evolve(player, hand=hand, value_pile=value_pile)


def _face_down_but_top(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    return _unknown(len(cards) - 1) + cards[-1:] if cards else cards


def _seen(
    position: Position, seat: int, perfect: bool
) -> tuple[tuple[PlayerState, ...], tuple[tuple[Card, ...] | None, ...], Pile]:
    """The players, dealer piles and discard pile as ``seat`` knows them: the
    one statement of what is hidden from whom (I1-I3)."""
    pile = position.discard_pile
    if perfect:
        players = position.players
        dealer_piles = position.dealer_piles
        hidden = hidden_setup_cards(position) - 1  # its top card lay visible
        if hidden > 0:
            pile = Pile.of(_unknown(hidden) + pile.cards[hidden:])
    else:
        players = tuple(
            player if seat_knows(seat, other, perfect) else _hidden(player)
            for other, player in enumerate(position.players)
        )
        dealer_piles = tuple(
            None if dealt is None else _face_down_but_top(dealt) for dealt in position.dealer_piles
        )
        if len(pile) > 1:  # only the top lies visible: the pile need not be walked
            pile = Pile.of((*_unknown(len(pile) - 1), pile.top))  # type: ignore[arg-type]
    return players, dealer_piles, pile


def _view(position: Position, seat: int, recall: Recall) -> Observation:
    """What ``seat`` knows of ``position`` with ``recall``, unchecked."""
    players, dealer_piles, discard_pile = _seen(position, seat, recall == "perfect")
    return Observation(
        **{
            **position_fields(position),
            "game_round_pile": _unknown(len(position.game_round_pile)),
            "dealer_piles": dealer_piles,
            "discard_pile": discard_pile,
            "players": players,
        },
        seat=seat,
        recall=recall,
    )


def observe(state: GameState, seat: int, *, recall: Recall = "perfect") -> Observation:
    """What ``seat`` knows of ``state``, with perfect recall or from the table alone.

    >>> from troedler import UNKNOWN, new_game
    >>> seen = observe(new_game(3, seed=1), 0, recall="table")
    >>> [UNKNOWN in player.hand for player in seen.players]
    [False, True, True]
    >>> [len(player.hand) for player in seen.players], seen.knows_hand(1)
    ([3, 3, 3], False)
    """
    if not isinstance(state, GameState):
        raise ConfigurationError(f"observe needs a GameState, not {quote(state)}")
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise ConfigurationError(f"seat must be 0 to {state.num_players - 1}, not {quote(seat)}")
    return _view(state, seat, check_recall(recall))
