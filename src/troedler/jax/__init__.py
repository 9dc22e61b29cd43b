"""A vectorized engine in JAX: thousands of games at once, proven equal to the core.

>>> import jax
>>> from troedler.jax import make, to_state
>>> env = make(players=3)
>>> state = jax.jit(env.init)(jax.random.PRNGKey(0))
>>> to_state(state).phase.value, env.num_actions
('take piles', 2441)

The environment is a :class:`pgx.Env`: ``init(key)`` and
``step(state, action, key)`` are pure, and ``jax.vmap`` and ``jax.jit`` run
batches of games. Action ids, observation tensors, rewards and truncation
are those of the Python adapters; :func:`to_state` and :func:`from_state`
go between the JAX state and the core's :class:`~troedler.GameState`.

Needs jax and pgx (``pip install -e '.[jax]'``).
"""

from troedler.jax.bridge import from_state, to_state, to_states
from troedler.jax.engine import State
from troedler.jax.env import TroedlerEnv, auto_reset, make
from troedler.jax.play import Played, random_play
from troedler.jax.sampling import random_legal_action, sample_legal_action

__all__ = [
    "Played",
    "State",
    "TroedlerEnv",
    "auto_reset",
    "from_state",
    "make",
    "random_legal_action",
    "random_play",
    "sample_legal_action",
    "to_state",
    "to_states",
]
