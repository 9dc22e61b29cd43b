"""Random play inside one jit-compiled loop: games at random, to the end and again.

:func:`random_play` runs a batch of games for a number of steps with random
legal actions drawn inside ``jax.lax.scan``, starting a new game wherever
one ends (with pgx's own ``pgx.experimental.auto_reset``). The speed
benchmark measures it; it is also the smallest example of the engine at work.
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
    """Steps made, over all games of the batch."""


def _check_count(value: object, name: str) -> int:
    if type(value) is not int or value < 1:
        raise ConfigurationError(f"{name} must be a whole number from 1, not {quote(value)}")
    return value


@functools.lru_cache(maxsize=16)
def _program(env: TroedlerEnv, games: int, steps: int) -> Any:
    step = jax.vmap(auto_reset(env.step, env.init))

    def run(key: jax.Array) -> tuple[State, jax.Array, jax.Array]:
        key, first = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(first, games))

        def one(carry: tuple[State, jax.Array, jax.Array, jax.Array], _: None) -> Any:
            state, key, finished, truncated = carry
            key, pick, chance = jax.random.split(key, 3)
            # A random legal action: the mask as logits, -inf where illegal.
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(pick, logits, axis=-1)
            state = step(state, action, jax.random.split(chance, games))
            finished = finished + state.terminated.sum()
            truncated = truncated + state.truncated.sum()
            return (state, key, finished, truncated), None

        zero = jnp.int32(0)
        (state, _key, finished, truncated), _ = jax.lax.scan(
            one, (state, key, zero, zero), None, length=steps
        )
        return state, finished, truncated

    return jax.jit(run)


def random_play(env: TroedlerEnv, key: jax.Array, *, games: int, steps: int) -> Played:
    """Play ``games`` games at once for ``steps`` steps with random legal actions.

    Everything runs in one jit-compiled ``jax.lax.scan``, compiled once per
    environment, batch size and step count. A game that ends (or is
    truncated) starts again at once, so every step is a step of some game.
    """
    if not isinstance(env, TroedlerEnv):
        raise ConfigurationError(f"expected a troedler.jax environment, got {quote(env)}")
    run = _program(env, _check_count(games, "games"), _check_count(steps, "steps"))
    state, finished, truncated = run(key)
    return Played(state, int(finished), int(truncated), games * steps)
