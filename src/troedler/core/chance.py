"""Chance as a player: every good dealt and every card turned up is a chance node.

A seeded game (:func:`troedler.new_game`) takes all its chance from its
seed. Game-theory tools need chance spelled out instead: at each chance node
the list of outcomes and their probabilities. A game started with
:func:`new_explicit_game` stops at every such node, with no player to move:

- set-up (S4): each good dealt onto a numbered village, in board order;
  outcomes are the kinds of goods still in the bag, weighted by how many;
- set-up (S5): each card of the face-up set-up discard pile, bottom to top;
- forming the dealer piles (R2): each card turned up from the face-down
  game-round pile, which is kept in hand order because its order is only
  decided card by card; outcomes are the kinds of card it still holds,
  weighted by their count. An empty game-round pile is replaced by the
  discard pile (R3) without a chance node: its order is chance's, later.

The rules are the engine's own, and there is one chance path: a seeded game
goes through the same steps and answers each node from its seed. It works
out the seed's four set-up shuffles up front and gives them to the same
step: its goods are dealt one good of the shuffled bag after another, its
set-up discard pile is laid bottom to top as the seed mixed it, and the
cards left are the game-round pile in the order the seed shuffled them.
Forming its piles lays, by the same function, the top cards of that pile;
and an empty game-round pile is replaced by the same step, with the seed's
next shuffle where explicit chance keeps the pile in hand order. Every
player decision is the same, so both modes give the same distribution of games.

>>> from troedler import legal_moves
>>> state = new_explicit_game(2)
>>> while is_chance_node(state):
...     outcome, _weight = chance_outcomes(state)[0]
...     state = apply_chance(state, outcome)
>>> state.phase.value, [str(move) for move in legal_moves(state)]
('take piles', ['discard 0', 'discard 1', 'discard 2'])
"""

from __future__ import annotations

from troedler.core.actions import forming_outcomes, turn_up
from troedler.core.cards import CARD_TYPES, Card
from troedler.core.datafile import describe
from troedler.core.errors import IllegalMoveError
from troedler.core.goods import Good
from troedler.core.setting_up import deal, new_explicit_game, setup_outcomes
from troedler.core.state import GameState, Phase

__all__ = [
    "ChanceOutcome",
    "apply_chance",
    "chance_outcomes",
    "chance_probabilities",
    "is_chance_node",
    "new_explicit_game",
]

ChanceOutcome = Good | Card
"""What chance turns up: a good at set-up, or a card."""


def is_chance_node(state: GameState) -> bool:
    """Whether chance, not a player, decides next in ``state``."""
    return state.phase.is_chance


def chance_outcomes(state: GameState) -> tuple[tuple[ChanceOutcome, int], ...]:
    """Every outcome chance may give next, each once, with a whole-number weight.

    Goods come in their order (anvil first), cards in hand order. The
    probability of an outcome is its weight over the sum of the weights.
    :class:`IllegalMoveError` if ``state`` is not a chance node.
    """
    if state.phase is Phase.SET_UP:
        return setup_outcomes(state)
    if state.phase is Phase.FORM_PILES:
        return forming_outcomes(state)
    raise IllegalMoveError("R1", f"no chance node: the game is in the {state.phase.value} phase")


def chance_probabilities(state: GameState) -> tuple[tuple[ChanceOutcome, float], ...]:
    """:func:`chance_outcomes` with probabilities that sum to 1."""
    outcomes = chance_outcomes(state)
    total = sum(weight for _outcome, weight in outcomes)
    return tuple((outcome, weight / total) for outcome, weight in outcomes)


def apply_chance(state: GameState, outcome: ChanceOutcome) -> GameState:
    """The state after chance gave ``outcome``, one of :func:`chance_outcomes`.

    :class:`IllegalMoveError` (naming the rule) for anything else.
    """
    if state.phase is Phase.SET_UP:
        return deal(state, outcome)
    if state.phase is Phase.FORM_PILES:
        if type(outcome) not in CARD_TYPES:
            raise IllegalMoveError("R2", f"chance turns up a card, not {describe(outcome)}")
        return turn_up(state, outcome)  # type: ignore[arg-type]
    raise IllegalMoveError("R1", f"no chance node: the game is in the {state.phase.value} phase")
