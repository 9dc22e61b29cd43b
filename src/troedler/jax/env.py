"""The pgx environment: :func:`make` and :class:`TroedlerEnv`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pgx

from troedler.core.board import Board
from troedler.core.cards import CardCatalogue
from troedler.core.errors import ConfigurationError, quote
from troedler.core.rulebook import Rules
from troedler.core.setting_up import set_table
from troedler.jax import engine
from troedler.jax.engine import State
from troedler.jax.tables import Game, Tables, tables

__all__ = ["TroedlerEnv", "auto_reset", "make"]

VERSION = "v0"
"""pgx's version string: changes when the behaviour of the environment does."""


class TroedlerEnv(pgx.Env):  # type: ignore[misc]  # pgx ships no type hints
    """troedler as a pgx environment: pure ``init`` and ``step``, jit- and vmap-able.

    Build it with :func:`make`. Action ids are those of
    :mod:`troedler.encoding.action_ids`, observations those of
    :mod:`troedler.encoding.tensors`, rewards and truncation those of the
    PettingZoo environment (:mod:`troedler.adapters.pettingzoo`).
    """

    def __init__(
        self,
        players: int = 4,
        *,
        recall: str = "table",
        max_rounds: int | None = 100,
        rules: Rules | None = None,
        board: Board | None = None,
        cards: CardCatalogue | None = None,
        starting_dealer: int | None = None,
    ) -> None:
        super().__init__()
        # The core's table of a new game fills in and checks the rules, the
        # board and the cards (S1-S5) and the starting dealer (S3); a dealer
        # of None is drawn from the key, so any seat stands in for it here.
        dealer = 0 if starting_dealer is None else starting_dealer
        table = set_table(players, dealer, board, rules, cards, seed=0)
        self.game = Game(table.rules, table.board, table.cards, recall, max_rounds)
        self.tables: Tables = tables(self.game)
        self.starting_dealer = starting_dealer
        """The seat of the first dealer (S3); None: drawn from the key, as the
        PettingZoo env draws it."""

    def __eq__(self, other: object) -> bool:
        # Equal environments share compiled programs (see troedler.jax.play).
        if not isinstance(other, TroedlerEnv):
            return NotImplemented
        return (
            self.tables is other.tables
            and self.game == other.game
            and self.starting_dealer == other.starting_dealer
        )

    def __hash__(self) -> int:
        return hash((self.game, self.starting_dealer))

    def _init(self, key: jax.Array) -> State:
        return engine.init(self.tables, key, self.starting_dealer)

    def _step(self, state: State, action: jax.Array, key: jax.Array | None) -> State:
        if key is None:
            raise ConfigurationError("step needs a key: chance (R3) is drawn inside the step")
        return engine.step(self.tables, state, action, key)

    def _observe(self, state: State, player_id: jax.Array) -> jax.Array:
        return engine.observe(self.tables, state, jnp.maximum(player_id, 0))

    def observe(self, state: State, player_id: Any = None) -> jax.Array:
        """The observation tensor of seat ``player_id`` (default: the seat to decide)."""
        if player_id is None:
            player_id = state.current_player
        return jax.lax.stop_gradient(self._observe(state, jnp.asarray(player_id, jnp.int32)))

    @property
    def id(self) -> Any:
        """pgx's name of the environment."""
        return "troedler"

    @property
    def version(self) -> str:
        """pgx's version of the environment."""
        return VERSION

    @property
    def num_players(self) -> int:
        """How many seats play."""
        return self.tables.n

    @property
    def num_actions(self) -> int:
        """The size of the action space: the ids of :mod:`troedler.encoding.action_ids`."""
        return self.tables.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """The shape of one observation tensor."""
        return (self.tables.observation_size,)


def make(
    players: int = 4,
    *,
    recall: str = "table",
    max_rounds: int | None = 100,
    rules: Rules | None = None,
    board: Board | None = None,
    cards: CardCatalogue | None = None,
    starting_dealer: int | None = None,
) -> TroedlerEnv:
    """The pgx environment for ``players`` seats.

    ``recall`` is what observations remember (``"table"`` or ``"perfect"``,
    I3), ``max_rounds`` the round after which a game still running is
    truncated (None: never); ``rules``, ``board`` and ``cards`` default to
    the rulebook's and troedler's own. Every :class:`~troedler.Rules` option
    is supported but ``explicit_chance``: the engine draws chance from its
    keys.
    """
    return TroedlerEnv(
        players,
        recall=recall,
        max_rounds=max_rounds,
        rules=rules,
        board=board,
        cards=cards,
        starting_dealer=starting_dealer,
    )


def auto_reset(env: TroedlerEnv) -> Callable[[State, jax.Array, jax.Array], State]:
    """``env.step`` that starts a new game the step after one ends: pgx's
    ``pgx.experimental.auto_reset(env.step, env.init)``, made cheap under ``vmap``.

    Its meaning and its keys are pgx's: a finished (or truncated) game
    first has its flags and rewards cleared, the step is made with the first
    half of ``key``, and a game the step ends is replaced by ``env.init`` of
    the second half, keeping that step's ``terminated``, ``truncated`` and
    ``rewards``; so the states are the same as pgx's wrapper gives. pgx's
    wrapper sets up a new game at every step for every game of a batch and
    keeps it only where one ended (``vmap`` runs both sides of its
    ``lax.cond``); this one sets up new games only for the games that ended.
    """
    if not isinstance(env, TroedlerEnv):
        raise ConfigurationError(f"expected a troedler.jax environment, got {quote(env)}")

    def fresh(key: jax.Array, ended: State) -> State:
        return env.init(key).replace(  # type: ignore[no-any-return]
            terminated=ended.terminated, truncated=ended.truncated, rewards=ended.rewards
        )

    def step(state: State, action: jax.Array, key: jax.Array) -> State:
        if key is None:
            raise ConfigurationError("step needs a key: chance (R3) is drawn inside the step")
        first, second = jax.random.split(key)
        done = state.terminated | state.truncated
        state = state.replace(
            terminated=state.terminated & ~done,
            truncated=state.truncated & ~done,
            rewards=jnp.where(done, 0.0, state.rewards),
        )
        state = env.step(state, action, first)
        done = state.terminated | state.truncated
        return engine._only_where(done, fresh, state, second, state)  # type: ignore[no-any-return]

    return step
