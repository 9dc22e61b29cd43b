"""Random play inside jit-compiled loops: games at random, to the end and again.

:func:`random_play` runs a batch of games for a number of steps with random
legal actions drawn inside ``jax.lax.scan``, starting a new game wherever
one ends. By default it wraps the step in :func:`troedler.jax.auto_reset`,
which has the meaning of pgx's ``pgx.experimental.auto_reset`` and sets up
new games only where games ended; with ``reset_every`` it resets finished
games only every so many steps instead. Actions are drawn by
:func:`troedler.jax.random_legal_action`. The speed benchmark measures it;
it is also the smallest example of the engine at work.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import jax
import jax.numpy as jnp
from pgx.experimental import auto_reset as pgx_auto_reset

from troedler.core.errors import ConfigurationError, quote
from troedler.jax.engine import State
from troedler.jax.env import TroedlerEnv, auto_reset
from troedler.jax.sampling import random_legal_action

__all__ = ["Played", "random_play"]


@attrs.frozen
class Played:
    """What :func:`random_play` gives back."""

    state: State
    """The batch after the last step."""
    finished: int
    """Games that came to their end (E1)."""
    truncated: int
    """Games cut at ``max_rounds``."""
    steps: int
    """Steps made in running games, over the whole batch (with auto_reset: every step)."""


def _check_count(value: object, name: str) -> int:
    if type(value) is not int or value < 1:
        raise ConfigurationError(f"{name} must be a whole number from 1, not {quote(value)}")
    return value


@functools.lru_cache(maxsize=16)
def _program(
    env: TroedlerEnv, games: int, steps: int, reset_every: int | None, pgx_reset: bool = False
) -> Any:
    """The compiled run of :func:`random_play`; with ``pgx_reset``, pgx's own
    ``auto_reset`` in place of the engine's (the benchmark compares the two)."""
    init = jax.vmap(env.init)
    plain = jax.vmap(env.step)
    wrapped = jax.vmap(pgx_auto_reset(env.step, env.init) if pgx_reset else auto_reset(env))

    def one(carry: tuple[State, jax.Array, jax.Array], key: jax.Array) -> Any:
        state, counts, _ = carry
        pick, chance = jax.random.split(key)
        running = ~(state.terminated | state.truncated)
        action = random_legal_action(pick, state.legal_action_mask)
        step = plain if reset_every else wrapped
        state = step(state, action, jax.random.split(chance, games))
        # A finished game stays finished under the plain step: count it once.
        ended = running if reset_every else jnp.ones(games, bool)
        counts = counts + jnp.stack(
            [
                (state.terminated & ended).sum(),
                (state.truncated & ended).sum(),
                running.sum() if reset_every else jnp.int32(games),
            ]
        )
        return (state, counts, key), None

    def run(key: jax.Array) -> tuple[State, jax.Array]:
        key, first = jax.random.split(key)
        state = init(jax.random.split(first, games))
        counts = jnp.zeros(3, jnp.int32)
        if not reset_every:
            (state, counts, _), _ = jax.lax.scan(
                one, (state, counts, key), jax.random.split(key, steps)
            )
            return state, counts
        chunks, rest = divmod(steps, reset_every)

        def chunk(carry: tuple[State, jax.Array], key: jax.Array) -> Any:
            state, counts = carry
            play, fresh = jax.random.split(key)
            (state, counts, _), _ = jax.lax.scan(
                one, (state, counts, key), jax.random.split(play, reset_every)
            )
            done = state.terminated | state.truncated
            new = init(jax.random.split(fresh, games))
            state = jax.tree_util.tree_map(
                lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
                new,
                state,
            )
            return (state, counts), None

        key, last = jax.random.split(key)
        if chunks:
            (state, counts), _ = jax.lax.scan(chunk, (state, counts), jax.random.split(key, chunks))
        if rest:
            (state, counts, _), _ = jax.lax.scan(
                one, (state, counts, last), jax.random.split(last, rest)
            )
        return state, counts

    return jax.jit(run)


def random_play(
    env: TroedlerEnv,
    key: jax.Array,
    *,
    games: int,
    steps: int,
    reset_every: int | None = None,
) -> Played:
    """Play ``games`` games at once for ``steps`` steps with random legal actions.

    Everything runs in one jit-compiled ``jax.lax.scan``, compiled once per
    environment, batch size, step count and ``reset_every``. A game that
    ends (or is truncated) starts again: at once, as with pgx's
    ``auto_reset`` (``reset_every=None``, :func:`troedler.jax.auto_reset`),
    or at the next multiple of ``reset_every`` steps, idle until then (its
    idle steps are not counted in :attr:`Played.steps`).
    """
    if not isinstance(env, TroedlerEnv):
        raise ConfigurationError(f"expected a troedler.jax environment, got {quote(env)}")
    _check_count(games, "games")
    _check_count(steps, "steps")
    if reset_every is not None:
        _check_count(reset_every, "reset_every")
    run = _program(env, games, steps, reset_every)
    state, counts = run(key)
    finished, truncated, played = (int(x) for x in counts)
    return Played(state, finished, truncated, played)
