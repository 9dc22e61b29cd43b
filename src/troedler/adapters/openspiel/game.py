"""troedler as an OpenSpiel game: ``python_troedler``, with chance as explicit chance nodes.

The engine plays every rule: a state here holds one engine state of a game
with explicit chance (:mod:`troedler.core.chance`) and hands OpenSpiel's calls
on to it. Player actions are the ids of :mod:`troedler.encoding.action_ids`,
chance actions those of :mod:`troedler.adapters.openspiel.chance`.

Parameters (``pyspiel.load_game("python_troedler(players=3,scored_after_rounds=20)")``):

=========================  =======  ===============================================
parameter                  default  meaning
=========================  =======  ===============================================
``players``                4        2, 3 or 4 (S1)
``scored_after_rounds``    100      a game still running after this many rounds
                                    ends there and is scored as it stands (E2-E6)
``starting_dealer``        0        the seat that deals the first round (S3)
``end_threshold``          0        fulfilled requests that end the game (E1);
                                    0 takes the rulebook's 5, 6 or 7
``reshuffle_mid_forming``  true     the R3 decision (see :class:`~troedler.Rules`)
=========================  =======  ===============================================

``max_rounds`` elsewhere (the PettingZoo env, ``play_game``, simulations)
cuts a game unfinished; here the game is scored, hence its own name.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from typing import Any

import attrs
import pyspiel

from troedler.adapters.openspiel.chance import ChanceIds, chance_ids
from troedler.adapters.openspiel.observer import make_observer
from troedler.core.board import default_board
from troedler.core.cards import default_cards
from troedler.core.chance import apply_chance, new_explicit_game
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError, IllegalMoveError
from troedler.core.goods import Good
from troedler.core.legal import apply_move
from troedler.core.rulebook import PILE_SIZE, Rules, most_carried, round_cards, setup_portion
from troedler.core.scoring import Outcome, outcome, score, tally
from troedler.core.state import GameState, Phase
from troedler.encoding.action_ids import ActionEncoder, ActionLayout, action_layout
from troedler.encoding.tensors import TensorLayout, tensor_layout
from troedler.io.state_json import state_from_json, state_to_json
from troedler.seat import determinize, observe
from troedler.text.render import render_observation

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_TYPE",
    "SHORT_NAME",
    "Position",
    "Table",
    "TroedlerGame",
    "TroedlerState",
    "max_moves_per_round",
    "resample",
    "table_for",
    "win_shares",
]

SHORT_NAME = "python_troedler"
"""The name OpenSpiel loads the game by."""

DEFAULT_PARAMETERS: dict[str, int | bool] = {
    "players": 4,
    "scored_after_rounds": 100,
    "starting_dealer": 0,
    "end_threshold": 0,
    "reshuffle_mid_forming": True,
}
"""Every parameter of the game with its default."""

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Die Troedler aus den Highlands",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMETERS,
)
"""What OpenSpiel is told about the game, the same for every parameter."""

_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_SET_UP = Phase.SET_UP


def win_shares(result: Outcome) -> list[float]:
    """Each seat's utility: the winners share 1 equally, everyone else gets 0 (E6).

    The utilities of every game add up to 1, and a seat's expected utility
    is its chance of winning, a shared win counted as a fraction.
    """
    share = 1.0 / len(result.winners)
    return [share if seat in result.winners else 0.0 for seat in range(len(result.damage))]


def max_moves_per_round(rules: Rules) -> int:
    """A bound on the decisions of one round, chance excluded, for the default cards.

    Taking: one pile per seat, and the two-player dealer's discarded pile
    (R4). A turn: every play uses up at least one card, and so does every
    discard down to the hand limit, so a turn holds at most one decision per
    card in hand when it starts, plus ending it (T1, T6, T7). A hand starts
    its turn with at most the hand limit (or the starting cards in round 1)
    and one dealer pile of up to four cards (R2, R4).
    """
    in_hand = most_carried(rules) + PILE_SIZE
    discard_pile = 1 if rules.two_player_rules else 0
    return rules.num_players * (1 + in_hand + 1) + discard_pile


@attrs.frozen(eq=False)
class Table:
    """What every state of one game (one set of parameters) shares.

    Build it with :func:`table_for`, which keeps one per parameter set.
    States hold it by reference: it is never copied or pickled whole.
    """

    parameters: tuple[int, int, int, int, bool]
    """players, scored_after_rounds, starting_dealer, end_threshold, reshuffle_mid_forming."""
    rules: Rules
    scored_after_rounds: int
    """A game still running after this many rounds ends and is scored."""
    actions: ActionLayout
    ids: ActionEncoder
    """The action ids of moves, remembered by identity for this table's games only."""
    chance: ChanceIds
    tensors: TensorLayout
    names: tuple[str, ...]
    """How renderings name the seats: ``seat 0`` ..."""
    first: GameState
    """The engine state at the start of the game, before any chance."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (table_for, self.parameters)


@functools.lru_cache(maxsize=32, typed=True)
def table_for(
    players: int,
    scored_after_rounds: int,
    starting_dealer: int,
    end_threshold: int,
    reshuffle_mid_forming: bool,
) -> Table:
    """The shared part of the game with these parameters (see the module's table).

    :class:`ConfigurationError` naming the parameter for a bad value.
    """
    for name, value in (
        ("players", players),
        ("scored_after_rounds", scored_after_rounds),
        ("starting_dealer", starting_dealer),
        ("end_threshold", end_threshold),
    ):
        if type(value) is not int:
            raise ConfigurationError(f"{name} must be an int, not {describe(value)}")
    if type(reshuffle_mid_forming) is not bool:
        raise ConfigurationError(
            f"reshuffle_mid_forming must be a bool, not {describe(reshuffle_mid_forming)}"
        )
    if scored_after_rounds < 1:
        raise ConfigurationError(
            f"scored_after_rounds must be 1 or more, not {scored_after_rounds}"
        )
    options: dict[str, Any] = {
        "explicit_chance": True,
        "reshuffle_mid_forming": reshuffle_mid_forming,
    }
    if end_threshold:
        options["end_threshold"] = end_threshold
    rules = Rules.for_players(players, **options)  # S1 and the rules' own limits
    board, cards = default_board(), default_cards()
    return Table(
        parameters=(
            players,
            scored_after_rounds,
            starting_dealer,
            end_threshold,
            reshuffle_mid_forming,
        ),
        rules=rules,
        scored_after_rounds=scored_after_rounds,
        actions=action_layout(board, cards),
        ids=ActionEncoder(action_layout(board, cards)),
        chance=chance_ids(cards),
        tensors=tensor_layout(board, cards, players),
        names=tuple(f"seat {seat}" for seat in range(players)),
        first=new_explicit_game(players, starting_dealer=starting_dealer, rules=rules),
    )


class _Derived:
    """What a :class:`Position` works out on first use: a cache, not a record."""

    __slots__ = ("ids", "text")

    def __init__(self) -> None:
        self.ids: tuple[int, ...] | None = None
        self.text: str | None = None


@attrs.frozen(eq=False, weakref_slot=False)
class Position:
    """One state of the game: the engine state and what every seat has seen of its past.

    Immutable, so that cloning an OpenSpiel state shares it. ``log`` holds
    one line per action so far, as every seat saw it: ``seat 1: take 0``,
    ``chance: good A``, ``chance: card bridge``, or ``chance: card ?`` for a
    card laid into the set-up discard pile below its top card, which nobody
    sees (I2). Derived values are computed once, on first use, and kept in
    a :class:`_Derived` of the position's own: the record itself never changes.
    """

    table: Table
    game: GameState
    log: str = ""
    _derived: _Derived = attrs.field(factory=_Derived, init=False, repr=False)

    @property
    def capped(self) -> bool:
        """Whether the game ended after ``scored_after_rounds``, before the rules ended it."""
        return not self.game.is_over and self.game.round > self.table.scored_after_rounds

    @property
    def is_terminal(self) -> bool:
        """Whether the game has ended, by the rules (E1) or after ``scored_after_rounds``."""
        game = self.game
        return game.is_over or game.round > self.table.scored_after_rounds

    def legal_action_ids(self) -> tuple[int, ...]:
        """The player's legal action ids, ascending (empty at chance and at the end)."""
        ids = self._derived.ids
        if ids is None:
            if self.is_terminal or self.game.current_player is None:
                ids = ()
            else:
                ids = self.table.ids.legal_action_ids(self.game)
            self._derived.ids = ids
        return ids

    def after(self, action: int) -> Position:
        """The position after ``action``, a chance outcome id at a chance node.

        :class:`IllegalMoveError` naming the rule if the action is not legal.
        """
        table, game = self.table, self.game
        if self.is_terminal:
            raise IllegalMoveError("E1", f"the game is over (round {game.round}): no more actions")
        if game.phase.is_chance:
            outcome_ = table.chance.outcome(action)
            after = apply_chance(game, outcome_)
            # Of the set-up discard pile only the top card is ever seen (I2):
            # every card laid on it but the last one is hidden.
            if game.phase is _SET_UP and after.phase is _SET_UP and not isinstance(outcome_, Good):
                entry = "chance: card ?\n"
            else:
                entry = f"chance: {table.chance.name(action)}\n"
        else:
            move = table.actions.move(action)
            after = apply_move(game, move)
            entry = f"seat {game.current_player}: {move}\n"
        return Position(table, after, self.log + entry)

    def returns(self) -> list[float]:
        """Each seat's utility: :func:`win_shares` at the end, 0 before."""
        game = self.game
        if game.is_over:
            return win_shares(outcome(game))
        if game.round > self.table.scored_after_rounds:
            # Scored as the rules score an ended game (E2-E6).
            tallies = [tally(game, seat) for seat in range(game.num_players)]
            return win_shares(score(tallies, two_player_rules=game.rules.two_player_rules))
        return [0.0] * game.num_players

    def text(self) -> str:
        """The whole state as text: what a seat with perfect recall sees, and the rest."""
        text = self._derived.text
        if text is None:
            game = self.game
            lines = [render_observation(observe(game, 0, recall="perfect"), self.table.names)]
            lines.append(
                "Discard pile, bottom to top: "
                + (" ".join(str(card) for card in game.discard_pile.cards) or "-")
            )
            lines.append(
                "Game-round pile, in hand order: "
                + (" ".join(str(card) for card in game.game_round_pile) or "-")
            )
            if self.capped:
                lines.append(
                    f"The game ended and was scored after {self.table.scored_after_rounds} rounds."
                )
            text = "\n".join(lines)
            self._derived.text = text
        return text

    def resampled(self, seat: int, rng: random.Random) -> Position:
        """The same past, with the cards ``seat`` does not know dealt anew (determinize)."""
        dealt = determinize(observe(self.game, seat, recall="perfect"), rng)
        return Position(self.table, dealt, self.log)

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # The engine state travels as troedler's own JSON, not as pickled records.
        return (_restore, (self.table, state_to_json(self.game), self.log))


def _restore(table: Table, game_json: str, log: str) -> Position:
    """A :class:`Position` back from what :meth:`Position.__reduce__` gave."""
    return Position(table, state_from_json(game_json), log)


class TroedlerState(pyspiel.State):  # type: ignore[misc]  # pyspiel ships no type hints
    """One state of ``python_troedler``; OpenSpiel builds them with ``new_initial_state()``.

    All there is to it lies in :attr:`position`, one immutable record, so
    ``clone()`` shares it instead of copying the game.
    """

    def __init__(self, game: TroedlerGame, position: Position | None = None) -> None:
        super().__init__(game)
        self._position: Position = game.first if position is None else position

    @property
    def position(self) -> Position:
        """The engine state and the log of what every seat has seen."""
        return self._position

    @property
    def engine_state(self) -> GameState:
        """The troedler :class:`~troedler.GameState` this state stands for."""
        return self._position.game

    def current_player(self) -> int:
        """The seat to decide, ``PlayerId.CHANCE`` at a chance node, or ``PlayerId.TERMINAL``."""
        position = self._position
        game = position.game
        if game.is_over or game.round > position.table.scored_after_rounds:
            return _TERMINAL
        seat = game.current_player
        return _CHANCE if seat is None else seat

    def _legal_actions(self, player: int) -> tuple[int, ...]:
        return self._position.legal_action_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcome ids of this chance node with their probabilities, ids ascending."""
        position = self._position
        return position.table.chance.outcomes(position.game)

    def _apply_action(self, action: int) -> None:
        self._position = self._position.after(action)

    def _action_to_string(self, player: int, action: int) -> str:
        table = self._position.table
        if player == _CHANCE:
            return table.chance.name(action)
        return str(table.actions.move(action))

    def is_terminal(self) -> bool:
        """Whether the game has ended, by the rules (E1) or after ``scored_after_rounds``."""
        return self._position.is_terminal

    def returns(self) -> list[float]:
        """Each seat's win share at the end (see :func:`win_shares`), 0 before."""
        return self._position.returns()

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> TroedlerState:
        """A state ``player`` cannot tell from this one, drawn with ``probability_sampler``.

        For Python callers such as OpenSpiel's Python ``ISMCTSBot`` without a
        resampler of its own; ``probability_sampler()`` gives numbers in [0, 1).
        """
        rng = random.Random(int(probability_sampler() * 2**53))
        return resample(self, player, rng)

    def __str__(self) -> str:
        return self._position.text()


def resample(state: TroedlerState, player: int, rng: random.Random) -> TroedlerState:
    """A copy of ``state`` with everything ``player`` does not know dealt anew.

    The copy has the same past for OpenSpiel (its ``history()`` is the
    original's, including the outcomes it redeals) and the same information
    state for every seat; only cards nobody has seen differ
    (:func:`troedler.determinize`).
    """
    if not isinstance(state, TroedlerState):
        raise ConfigurationError(f"expected a python_troedler state, got {describe(state)}")
    copy: TroedlerState = state.clone()
    copy._position = state.position.resampled(player, rng)
    return copy


class TroedlerGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type hints
    """The game ``python_troedler`` for one set of parameters (see the module's table)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        parameters = dict(DEFAULT_PARAMETERS)
        for name, value in (params or {}).items():
            if name not in parameters:
                raise ConfigurationError(f"python_troedler has no parameter {describe(name)}")
            parameters[name] = value
        table = table_for(
            parameters["players"],
            parameters["scored_after_rounds"],
            parameters["starting_dealer"],
            parameters["end_threshold"],
            parameters["reshuffle_mid_forming"],
        )
        rules = table.rules
        info = pyspiel.GameInfo(
            num_distinct_actions=table.actions.num_actions,
            max_chance_outcomes=table.chance.num_outcomes,
            num_players=rules.num_players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=table.scored_after_rounds * max_moves_per_round(rules),
        )
        super().__init__(GAME_TYPE, info, parameters)
        self.table = table
        """The rules, how many rounds are scored, and the id layouts of this game."""
        self.first = Position(table, table.first)
        """The position every game starts from."""

    def new_initial_state(self) -> TroedlerState:
        """A state at the start of the game: its first chance node."""
        return TroedlerState(self)

    def max_chance_nodes_in_history(self) -> int:
        """Chance nodes in one game at most: the goods and the set-up pile (S4, S5),
        and the cards turned up into dealer piles in each round (R2)."""
        table = self.table
        rules = table.rules
        goods = sum(village.number for village in table.first.board.villages)
        piles = round_cards(rules.num_players)
        return goods + setup_portion(rules) + table.scored_after_rounds * piles

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> Any:
        """The observer of ``iig_obs_type`` (see :mod:`troedler.adapters.openspiel.observer`)."""
        return make_observer(self.table, iig_obs_type, params)


pyspiel.register_game(GAME_TYPE, TroedlerGame)
