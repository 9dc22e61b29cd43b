"""Drawing actions from the legal mask: uniformly, or from a policy's logits.

Both functions draw one random number per game and find the chosen id by
an inverse of the running sum over the 2,441 action ids, taken in two
short steps (over blocks of 64 ids, then within one block): a running sum
over all the ids at once is slow on a CPU, and ``jax.random.categorical``
draws a random number for every id, which costs several steps of the game.

>>> import jax
>>> from troedler.jax import make, random_legal_action
>>> env = make(players=2)
>>> state = jax.jit(env.init)(jax.random.PRNGKey(0))
>>> action = random_legal_action(jax.random.PRNGKey(1), state.legal_action_mask)
>>> bool(state.legal_action_mask[action])
True

Both work on one game's mask ``[num_actions]`` or on a batch ``[..., num_actions]``
with one key for all, under ``jax.jit`` and ``jax.vmap``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["random_legal_action", "sample_legal_action"]

BLOCK = 64
"""Action ids per block of the two-step inverse."""


def _blocks(weights: jax.Array) -> jax.Array:
    """``weights [..., ids]`` padded with zeros and cut into ``[..., blocks, BLOCK]``."""
    size = weights.shape[-1]
    blocks = -(-size // BLOCK)
    pad = [(0, 0)] * (weights.ndim - 1) + [(0, blocks * BLOCK - size)]
    return jnp.pad(weights, pad).reshape(*weights.shape[:-1], blocks, BLOCK)


def _inverse(rows: jax.Array, target: jax.Array) -> jax.Array:
    """The first id whose running sum of ``rows [..., blocks, BLOCK]`` passes
    ``target [...]`` (at least 0 and below the total), as a flat id.

    The id found has a weight above 0: the running sum before it is at most
    the target, and its own passes it. Where rounding puts the target at
    the total or past it, the last id of positive weight is taken.
    """
    per_block = rows.sum(axis=-1)
    running = jnp.cumsum(per_block, axis=-1)
    last_block = per_block.shape[-1] - 1 - jnp.argmax(per_block[..., ::-1] > 0, axis=-1)
    block = jnp.minimum((running <= target[..., None]).sum(axis=-1), last_block)
    before = jnp.take_along_axis(running - per_block, block[..., None], axis=-1)[..., 0]
    row = jnp.take_along_axis(rows, block[..., None, None], axis=-2)[..., 0, :]
    last_in_row = BLOCK - 1 - jnp.argmax(row[..., ::-1] > 0, axis=-1)
    within = jnp.minimum(
        (jnp.cumsum(row, axis=-1) <= (target - before)[..., None]).sum(axis=-1), last_in_row
    )
    return (block * BLOCK + within).astype(jnp.int32)


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A legal action id of each game, each legal id equally likely.

    ``legal_action_mask`` is ``[..., num_actions]`` bool (``state.legal_action_mask``
    of one game or a batch); the result has its shape without the last axis,
    int32. The draw is exact: the k-th legal id for k uniform among the
    legal count, counted in whole numbers. A mask without a legal id gives 0.
    """
    rows = _blocks(legal_action_mask.astype(jnp.int32))
    count = rows.sum(axis=(-2, -1))
    # Below the count: a 32-bit word modulo the count would favour small k by
    # at most count / 2**32 (below 6e-7 for 2,441 ids); a float draw is as good.
    pick = jnp.floor(jax.random.uniform(key, count.shape) * count).astype(jnp.int32)
    pick = jnp.clip(pick, 0, jnp.maximum(count - 1, 0))
    return _inverse(rows, pick)


def sample_legal_action(
    key: jax.Array, logits: jax.Array, legal_action_mask: jax.Array
) -> jax.Array:
    """An action id of each game drawn from ``softmax(logits)`` over its legal ids.

    The same distribution as ``jax.random.categorical(key, jnp.where(mask,
    logits, -jnp.inf))``, up to float32 rounding, at the cost of one random
    number per game. ``logits`` and ``legal_action_mask`` are ``[...,
    num_actions]`` (float and bool); the values of ``logits`` at illegal ids
    are never read. A mask without a legal id gives 0.
    """
    masked = jnp.where(legal_action_mask, logits, -jnp.inf)
    top = jnp.max(masked, axis=-1, keepdims=True)
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    weights = jnp.where(legal_action_mask, jnp.exp(masked - top), 0.0)
    rows = _blocks(weights)
    total = rows.sum(axis=(-2, -1))
    target = jax.random.uniform(key, total.shape) * total
    return _inverse(rows, target)
