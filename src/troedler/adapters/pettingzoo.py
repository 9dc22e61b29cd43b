"""troedler as a PettingZoo AEC environment, in the style of PettingZoo's classic games.

>>> from troedler.adapters.pettingzoo import env
>>> game = env(players=3)
>>> game.reset(seed=7)
>>> game.agent_selection, int(game.action_space("player_0").n)
('player_0', 2441)

- Agents are ``player_0`` ... ``player_{n-1}``, one per seat.
- Actions are the ids of :mod:`troedler.encoding.action_ids`: ``Discrete(num_actions)``.
- Observations are dicts: ``"observation"`` is the seat's
  :func:`~troedler.encoding.tensors.observation_tensor` (with the env's
  ``recall``), ``"action_mask"`` an ``int8`` array with 1 for every legal
  action id. The mask is all zeros for every agent but the one to act, and
  for everyone once the game is over or truncated.
- One player often decides several times in a row (take a pile, play
  cards, end the turn, discard): ``agent_selection`` then stays on them.
- All chance comes from the env's ``np_random``: ``reset(seed=s)`` draws the
  game's seed and starting dealer from it, so it replays a whole episode;
  ``reset()`` without a seed goes on with the same generator.
- Rewards come only at the end of the game (see :func:`rewards_for`); the
  infos then hold each seat's points, damage and result.
- With ``max_rounds``, an episode still running after that many rounds is
  truncated: every agent gets ``truncations[agent] = True`` and no reward.

Needs numpy, gymnasium and pettingzoo (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from troedler.core.board import default_board
from troedler.core.cards import default_cards
from troedler.core.chance import new_game
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import Move
from troedler.core.rulebook import Rules
from troedler.core.scoring import Outcome, outcome
from troedler.core.state import GameState
from troedler.encoding.action_ids import ActionEncoder, ActionLayout, action_layout
from troedler.encoding.tensors import TensorEncoder, TensorLayout, tensor_layout
from troedler.seat import Recall, check_recall, observe
from troedler.text.render import render_moves, render_observation

__all__ = ["ILLEGAL_MOVE_REWARD", "EnvObservation", "TroedlerEnv", "env", "raw_env", "rewards_for"]

ILLEGAL_MOVE_REWARD = -1.0
"""What :func:`env`'s illegal-move wrapper gives an agent that picks a masked-out action."""

RENDER_MODES = ("ansi",)
"""What ``render_mode`` may be, besides None."""

_SEED_BOUND = 2**63
_INT8 = np.dtype(np.int8)  # a dtype object: numpy converts a type name on every call
EnvObservation = dict[str, npt.NDArray[Any]]
"""What observe() gives: the tensor under "observation", the mask under "action_mask"."""


def rewards_for(result: Outcome) -> tuple[float, ...]:
    """Each seat's terminal reward: the winners share 1 equally, everyone else gets 0.

    So the rewards of every finished game add up to 1, and a seat's
    expected reward is its chance of winning (a shared win counted as a
    fraction). Total damage earns no extra penalty: the rules make it a
    loss like any other (E3, E4), and a player who cannot win gains nothing
    by avoiding it, so a penalty would train agents for another game.
    """
    share = 1.0 / len(result.winners)
    return tuple(share if seat in result.winners else 0.0 for seat in range(len(result.damage)))


class TroedlerEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type hints
    """The raw AEC environment; :func:`env` wraps it as PettingZoo advises.

    ``players`` is 2 to 4, ``recall`` ``"table"`` or ``"perfect"`` (what the
    observations remember, see :func:`troedler.observe`), ``max_rounds`` the
    round after which an episode is truncated (None: never),
    ``render_mode`` None or ``"ansi"``.
    """

    metadata = {  # noqa: RUF012 - PettingZoo reads it as a plain class attribute
        "name": "troedler_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        recall: Recall = "table",
        max_rounds: int | None = 100,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = Rules.for_players(players)  # ConfigurationError (S1) for a bad count
        check_recall(recall)
        if max_rounds is not None and (type(max_rounds) is not int or max_rounds < 1):
            raise ConfigurationError(
                f"max_rounds is None or a whole number from 1, not {describe(max_rounds)}"
            )
        if render_mode not in (None, *RENDER_MODES):
            raise ConfigurationError(f"render_mode is None or 'ansi', not {describe(render_mode)}")
        self.recall: Recall = recall
        self.max_rounds = max_rounds
        self.render_mode = render_mode
        board, cards = default_board(), default_cards()
        self.actions: ActionLayout = action_layout(board, cards)
        """The action ids."""
        self.tensors: TensorLayout = tensor_layout(board, cards, players)
        """The layout of the observation tensors."""
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        high = np.full(self.tensors.size, 255.0, dtype=np.float32)
        high[self.tensors.slice("round").start] = np.inf  # the round is the one unbounded count
        # Built once: PettingZoo's tests require the same space objects on every call.
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.actions.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self.actions.num_actions) for agent in self.possible_agents
        }
        self.np_random: np.random.Generator | None = None
        self.game: GameState | None = None
        """The game state; None before the first reset."""
        self._views: dict[str, EnvObservation] = {}
        self._legal: tuple[list[int], tuple[Move, ...]] | None = None
        """The ids and moves of the agent to act, once observed."""
        self._num_actions = self.actions.num_actions
        # The env's own action ids by move identity: not shared with another env.
        self._ids = ActionEncoder(self.actions)
        # The tensor straight from the state: the same as observe() then
        # encode(), as the tests check, without building an Observation.
        # The env's own encoder: what it remembers between steps is not shared.
        self._encode = TensorEncoder(self.tensors).encode_state

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every time)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object every time)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; with ``seed``, reseed the env's generator first.

        ``options`` are accepted, as PettingZoo asks, and ignored.
        """
        if seed is not None or self.np_random is None:
            self.np_random, _ = seeding.np_random(seed)
        players = self.rules.num_players
        self.game = new_game(
            players,
            seed=int(self.np_random.integers(_SEED_BOUND)),
            starting_dealer=int(self.np_random.integers(players)),
            rules=self.rules,
        )
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._moved()

    def observe(self, agent: str) -> EnvObservation:
        """What ``agent`` knows now, as a tensor, and its action mask."""
        view = self._views.get(agent)
        if view is not None:
            return view
        game = self._game()
        seat = self._seat[agent]
        # Only the agent to act has moves: what observe() would list for it.
        if game.current_player == seat and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        ):
            moves = legal_moves(game)
            ids = self._ids.action_ids(moves)
            flags = bytearray(self._num_actions)
            for action in ids:
                flags[action] = 1
            mask = np.frombuffer(flags, _INT8)  # shares the (writable) bytearray
            self._legal = (ids, moves)
        else:
            mask = np.zeros(self._num_actions, _INT8)
        view = {"observation": self._encode(game, seat, self.recall), "action_mask": mask}
        self._views[agent] = view
        return view

    def step(self, action: int | None) -> None:
        """The agent to act takes ``action``; a finished agent must pass None.

        :class:`IllegalMoveError` naming the rule if the action is not legal
        (the illegal-move wrapper of :func:`env` ends the game instead).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._legal
        if legal is None:
            self.observe(agent)
            legal = self._legal
            assert legal is not None  # observe() of the agent to act fills it
        ids, moves = legal
        game = self._game()
        # An int, or a numpy integer as Discrete.sample() gives; for anything
        # else, or an id not legal now, the layout says why it is refused.
        if (type(action) is int or isinstance(action, np.integer)) and action in ids:
            move = moves[ids.index(action)]
        else:
            move = self.actions.move_for(action, game)  # type: ignore[arg-type]
        self._cumulative_rewards[agent] = 0.0
        self.game = apply_move(game, move)
        self._moved()

    def _moved(self) -> None:
        """Bring agent selection, rewards and ends up to date with the new state."""
        game = self._game()
        self._views = {}
        self._legal = None
        if game.is_over:
            result = outcome(game)
            rewards = rewards_for(result)
            for seat, agent in enumerate(self.possible_agents):
                self.rewards[agent] = rewards[seat]
                self.terminations[agent] = True
                self.infos[agent] = {
                    "points": result.points[seat],
                    "damage": result.damage[seat],
                    "total_damage": seat in result.totally_damaged,
                    "winner": seat in result.winners,
                }
            self._accumulate_rewards()
        elif self.max_rounds is not None and game.round > self.max_rounds:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            to_move = game.current_player
            assert to_move is not None  # a game that is not over has a player to move
            self.agent_selection = self.possible_agents[to_move]

    def _game(self) -> GameState:
        if self.game is None:
            raise ConfigurationError("call reset() before using the environment")
        return self.game

    def render(self) -> str | None:
        """With ``render_mode="ansi"``, the text view of the agent to act and its actions."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='ansi'; nothing to render")
            return None
        game = self._game()
        seat = game.current_player
        names = self.possible_agents
        if seat is None:
            result = outcome(game)
            lines = [render_observation(observe(game, 0, recall="perfect"), names), "Game over:"]
            for s, name in enumerate(names):
                won = " wins" if s in result.winners else ""
                lines.append(f"  {name}: {result.points[s]} points, {result.damage[s]} damage{won}")
            return "\n".join(lines)
        seen = observe(game, seat, recall=self.recall)
        allowed = legal_moves(game)
        ids = self._ids.action_ids(allowed)
        moves = render_moves(allowed).splitlines()
        listed = [f"{i:>6} {line.split('. ', 1)[1]}" for i, line in zip(ids, moves, strict=True)]
        return "\n".join(
            [render_observation(seen, names), f"{names[seat]} to act (action id, move):", *listed]
        )

    def close(self) -> None:
        """Nothing to release."""


raw_env = TroedlerEnv
"""PettingZoo's name for the unwrapped environment class."""


def env(
    players: int = 4,
    recall: Recall = "table",
    max_rounds: int | None = 100,
    render_mode: str | None = None,
) -> AECEnv:
    """A troedler environment with PettingZoo's standard wrappers.

    An illegal action ends the game with :data:`ILLEGAL_MOVE_REWARD` for the
    agent who chose it (``TerminateIllegalWrapper``); an action outside the
    space fails an assertion (``AssertOutOfBoundsWrapper``); and calls out of
    order raise (``OrderEnforcingWrapper``). Arguments as for :class:`TroedlerEnv`.
    """
    wrapped: AECEnv = TroedlerEnv(players, recall, max_rounds, render_mode)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=ILLEGAL_MOVE_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
