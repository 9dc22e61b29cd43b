"""troedler as a single-agent Gymnasium environment: a learner against bots.

>>> from troedler.adapters.gymnasium import env
>>> game = env(players=3, opponents=["greedy", "random"], seat=1)
>>> tensor, info = game.reset(seed=7)
>>> tensor.shape, int(game.action_space.n), int(game.action_masks().sum()) > 0
((679,), 2441, True)

The learner holds one seat; troedler's bots, or any bot objects, play the
others, between the learner's decisions. It is the PettingZoo environment of
:mod:`troedler.adapters.pettingzoo` seen from one seat, and shares its
pieces:

- Actions are the same ids (``Discrete(num_actions)``), observations the
  same tensor (the ``"observation"`` part of the PettingZoo observation,
  with the env's ``recall``), and :meth:`TroedlerGymEnv.action_masks` the
  same legal-action mask, as booleans, which is what sb3-contrib's
  ``MaskablePPO`` asks an env for.
- The reward is 0 until the game ends, then the learner's share of the win
  (:func:`~troedler.adapters.pettingzoo.rewards_for`); an action that is
  not legal ends the episode with
  :data:`~troedler.adapters.pettingzoo.ILLEGAL_MOVE_REWARD`, as the
  PettingZoo env's illegal-move wrapper does. With ``max_rounds`` an
  episode still running after that round is truncated, without reward.
- All chance comes from the env's ``np_random``, set by
  ``reset(seed=...)``: the game's seed and starting dealer, the learner's
  seat when ``seat`` is None, and each opponent's random generator, so a
  seed replays an episode exactly (given a learner that does).

Needs numpy and gymnasium (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, SupportsFloat, cast

import gymnasium
import numpy as np
import numpy.typing as npt

from troedler.adapters.pettingzoo import ILLEGAL_MOVE_REWARD, TroedlerEnv
from troedler.bots.base import Bot, BotFailed, check_bot, tell_game_over
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError, IllegalMoveError
from troedler.core.legal import legal_moves
from troedler.core.scoring import Outcome, outcome
from troedler.core.state import RECALLS
from troedler.seat import Recall, observe
from troedler.simulation.lineup import bot_from_text

__all__ = ["Opponent", "TroedlerGymEnv", "env"]

Opponent = Bot | Callable[[], Bot] | str
"""An opponent: a bot object (kept for every episode), a class or factory
(called for every episode) or a bot's text (``"greedy"``, ``"ismcts:50"``,
``"exec:./mybot"``: made again for every episode)."""

_SEED_BOUND = 2**63


class TroedlerGymEnv(gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One seat of a troedler game as a Gymnasium environment; :func:`env` makes one.

    ``opponents`` take the other seats in seat order, repeated when fewer
    are given; ``seat`` is the learner's seat, or None for a seat drawn at
    every reset. ``recall`` is what the learner's observations remember,
    ``opponent_recall`` what the opponents are shown (bots play with
    ``"perfect"`` recall in tournaments). Other arguments as for
    :class:`~troedler.adapters.pettingzoo.TroedlerEnv`.
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - Gymnasium reads a class attribute

    def __init__(
        self,
        players: int = 2,
        opponents: Sequence[Opponent] = ("random",),
        seat: int | None = 0,
        recall: Recall = "table",
        opponent_recall: Recall = "perfect",
        max_rounds: int | None = 100,
        render_mode: str | None = None,
    ) -> None:
        self.game_env = TroedlerEnv(players, recall, max_rounds, render_mode)
        """The PettingZoo environment this one plays through."""
        if isinstance(opponents, str) or not isinstance(opponents, Sequence) or not opponents:
            raise ConfigurationError(
                f"opponents is a non-empty list of bots, not {describe(opponents)}"
            )
        if len(opponents) > players - 1:
            raise ConfigurationError(
                f"{len(opponents)} opponents given for {players - 1} seats besides the learner's"
            )
        if seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise ConfigurationError(
                f"seat is None or a seat from 0 to {players - 1}, not {describe(seat)}"
            )
        if opponent_recall not in RECALLS:
            raise ConfigurationError(
                f"opponent_recall is 'perfect' or 'table', not {describe(opponent_recall)}"
            )
        self.opponents = tuple(opponents[k % len(opponents)] for k in range(players - 1))
        """What plays each seat besides the learner's, in seat order."""
        for opponent in self.opponents:
            # Made once here, so that a bad one is refused now rather than at reset.
            made = _make(opponent)
            if made is not opponent:
                _close(made)
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        """The learner's seat in the current episode."""
        self.opponent_recall: Recall = opponent_recall
        self.render_mode = render_mode
        self.observation_space = self.game_env.observation_spaces["player_0"]["observation"]
        self.action_space = self.game_env.action_spaces["player_0"]
        self._bots: list[Bot | None] = []
        self._rngs: list[random.Random] = []
        self._over = True

    @property
    def _agent(self) -> str:
        return self.game_env.possible_agents[self.seat]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Start a new game and play the opponents up to the learner's first decision.

        With ``seed``, the env's generator is seeded first; without, it goes on.
        ``options`` are accepted and ignored.
        """
        super().reset(seed=seed)
        self._end("stopped")
        players = self.game_env.rules.num_players
        draw = self.np_random.integers
        if self.fixed_seat is None:
            self.seat = int(draw(players))
        self.game_env.reset(seed=int(draw(_SEED_BOUND)))
        self._rngs = [random.Random(int(draw(_SEED_BOUND))) for _ in range(players)]  # noqa: S311 - a game's chance
        others = iter(self.opponents)
        self._bots = [None if s == self.seat else _make(next(others)) for s in range(players)]
        self._over = False
        failure = self._play_opponents()
        return self._observation(), self._info(failure)

    def step(
        self, action: np.int64 | int
    ) -> tuple[npt.NDArray[np.float32], SupportsFloat, bool, bool, dict[str, Any]]:
        """The learner takes ``action``; the opponents then play up to its next decision."""
        if self._over:
            raise ConfigurationError("the episode is over: call reset() first")
        mask = self.game_env.observe(self._agent)["action_mask"]
        integer = type(action) is int or isinstance(action, np.integer)
        if not (integer and 0 <= action < len(mask) and mask[action]):
            self._end("stopped")
            info = {"illegal_action": int(action) if integer else describe(action)}
            return self._observation(), ILLEGAL_MOVE_REWARD, True, False, info
        self.game_env.step(int(action))
        failure = self._play_opponents()
        agent = self._agent
        terminated = self.game_env.terminations[agent]
        truncated = self.game_env.truncations[agent] or failure is not None
        reward = self.game_env.rewards[agent] if terminated else 0.0
        return self._observation(), reward, terminated, truncated, self._info(failure)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """True for every action id legal for the learner now (all False once the episode ends)."""
        if self._over:
            return np.zeros(self.game_env.actions.num_actions, dtype=np.bool_)
        return self.game_env.observe(self._agent)["action_mask"].astype(np.bool_)

    def render(self) -> str | None:
        """With ``render_mode="ansi"``, the text view of the seat to act and its actions."""
        rendered: str | None = self.game_env.render()
        return rendered

    def close(self) -> None:
        """End the current game: program bots among the opponents are told and stop."""
        self._end("stopped")

    # --- between the learner's decisions -----------------------------------

    def _play_opponents(self) -> str | None:
        """Play the opponents' moves; a failure's reason, which truncates the episode."""
        game_env = self.game_env
        while not self._finished() and game_env.agent_selection != self._agent:
            state = game_env.game
            assert state is not None and state.current_player is not None
            seat = state.current_player
            bot = self._bots[seat]
            assert bot is not None  # every seat but the learner's has a bot
            seen = observe(state, seat, recall=self.opponent_recall)
            allowed = legal_moves(state)
            try:
                move = bot.choose(seen, allowed, self._rngs[seat])
            except BotFailed as error:  # a program bot that crashed or timed out
                self._end("forfeited")
                return f"{check_bot(bot)} (seat {seat}) {error.kind}: {error}"
            if move not in allowed:
                raise IllegalMoveError(
                    "T1", f"bot {check_bot(bot)!r} chose {describe(move)}, which is not legal"
                )
            game_env.step(game_env.actions.action_id(move))
        if self._finished():
            state = game_env.game
            assert state is not None
            done = state.is_over
            self._end("finished" if done else "capped", outcome(state) if done else None)
        return None

    def _finished(self) -> bool:
        agent = self._agent
        return bool(self.game_env.terminations[agent] or self.game_env.truncations[agent])

    def _end(self, reason: str, result: Outcome | None = None) -> None:
        if not self._over:
            tell_game_over([bot for bot in self._bots if bot is not None], result, reason)
        self._over = True

    def _observation(self) -> npt.NDArray[np.float32]:
        # A copy: the PettingZoo env hands out the same array until the next
        # move, and Gymnasium lets the learner keep (and change) what it gets.
        observed: npt.NDArray[np.float32] = self.game_env.observe(self._agent)["observation"]
        return observed.copy()

    def _info(self, failure: str | None) -> dict[str, Any]:
        info = dict(self.game_env.infos[self._agent])
        info["seat"] = self.seat
        if failure is not None:
            info["opponent_failure"] = failure
        return info


def _make(opponent: Opponent) -> Bot:
    """The bot for an episode: a text's or factory's new bot, or the bot object itself."""
    if isinstance(opponent, str):
        return bot_from_text(opponent)
    if not isinstance(opponent, type) and hasattr(opponent, "choose"):
        check_bot(opponent)
        return cast(Bot, opponent)
    if not callable(opponent):
        raise ConfigurationError(
            f"an opponent is a bot, a bot factory or a bot's text, not {describe(opponent)}"
        )
    made = opponent()
    check_bot(made)
    return made


def _close(bot: Bot) -> None:
    close = getattr(bot, "close", None)
    if callable(close):
        close()


def env(
    players: int = 2,
    opponents: Sequence[Opponent] = ("random",),
    seat: int | None = 0,
    recall: Recall = "table",
    opponent_recall: Recall = "perfect",
    max_rounds: int | None = 100,
    render_mode: str | None = None,
) -> TroedlerGymEnv:
    """A single-agent troedler environment: the learner at ``seat``, ``opponents`` elsewhere.

    See :class:`TroedlerGymEnv` for the arguments. Gymnasium's
    ``env_checker.check_env`` passes it.
    """
    return TroedlerGymEnv(
        players, opponents, seat, recall, opponent_recall, max_rounds, render_mode
    )
