"""Random play inside jit-compiled loops: games at random, to the end and again.

:func:`random_play` runs a batch of games for a number of steps with random
legal actions drawn inside ``jax.lax.scan``, starting a new game wherever
one ends. By default it wraps the step in pgx's own
``pgx.experimental.auto_reset``; with ``reset_every`` it resets finished
games only every so many steps instead, which spares the batch the set-up
that ``auto_reset`` computes at every step for every game (under ``vmap``
both sides of its ``lax.cond`` run). The speed benchmark measures both; it
is also the smallest example of the engine at work.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import jax
import jax.numpy as jnp
from pgx.experimental import auto_reset

from troedler.errors import ConfigurationError, quote
from troedler.jax.engine import State
from troedler.jax.env import TroedlerEnv

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


_BLOCK = 64


def _random_actions(state: State, key: jax.Array) -> jax.Array:
    """A legal action of each game, uniformly at random: the k-th legal id for
    a random k. (``jax.random.categorical`` over the 2,441 ids draws a random
    number for every id and costs ten times the step.) The k-th id is found
    in two short running sums, over blocks of 64 ids and then within one:
    a running sum over all 2,441 ids is slow on a CPU."""
    mask = state.legal_action_mask
    size = mask.shape[-1]
    blocks = -(-size // _BLOCK)
    padded = jnp.zeros((*mask.shape[:-1], blocks * _BLOCK), bool).at[..., :size].set(mask)
    rows = padded.reshape(*mask.shape[:-1], blocks, _BLOCK).astype(jnp.int32)
    per_block = rows.sum(axis=-1)
    count = per_block.sum(axis=-1)
    pick = jnp.floor(jax.random.uniform(key, count.shape) * count).astype(jnp.int32)
    pick = jnp.minimum(pick, count - 1)
    running = jnp.cumsum(per_block, axis=-1)
    block = jnp.argmax(running > pick[..., None], axis=-1)
    before = jnp.take_along_axis(running - per_block, block[..., None], axis=-1)[..., 0]
    row = jnp.take_along_axis(rows, block[..., None, None], axis=-2)[..., 0, :]
    within = jnp.argmax(jnp.cumsum(row, axis=-1) > (pick - before)[..., None], axis=-1)
    return block * _BLOCK + within


@functools.lru_cache(maxsize=16)
def _program(env: TroedlerEnv, games: int, steps: int, reset_every: int | None) -> Any:
    init = jax.vmap(env.init)
    plain = jax.vmap(env.step)
    wrapped = jax.vmap(auto_reset(env.step, env.init))

    def one(carry: tuple[State, jax.Array, jax.Array], key: jax.Array) -> Any:
        state, counts, _ = carry
        pick, chance = jax.random.split(key)
        running = ~(state.terminated | state.truncated)
        action = _random_actions(state, pick)
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
    ends (or is truncated) starts again: at once with pgx's ``auto_reset``
    (``reset_every=None``), or at the next multiple of ``reset_every`` steps,
    idle until then (its idle steps are not counted in :attr:`Played.steps`).
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
