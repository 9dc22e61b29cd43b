"""Where the JAX engine's step spends its time: microseconds per game, by function.

On a batch of mid-game states (random legal play from new games), every
function of the engine is jit-compiled under ``jax.vmap`` on its own and
timed (best of a few runs); for each the size of its jaxpr (equations,
counted through nested calls and loops) and its compile time are printed
too, as pgx profiles its games. In the same run the core
(``legal_moves`` then ``apply_move``) and the PettingZoo env are timed, so
that the figures of one table compare.

    python benchmarks/jax_profile.py --players 4 --batch 1024

Prints a Markdown table, then one JSON line with every figure. Needs the
``jax`` and ``rl`` extras.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax_env import core_decisions_per_second, pettingzoo_steps_per_second  # this folder

from troedler.jax import engine, make
from troedler.jax.sampling import random_legal_action, sample_legal_action

WARM_STEPS = 60
"""Random steps from new games to the measured mid-game states."""


def equations(jaxpr: Any) -> int:
    """Equations of ``jaxpr``, those of nested jaxprs (loops, conds, calls) included."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for param in eqn.params.values():
            for sub in param if isinstance(param, (list, tuple)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    total += equations(inner)
    return total


def profile(
    function: Callable[..., Any], arguments: tuple[Any, ...], repeats: int
) -> dict[str, Any]:
    """Jaxpr size, compile time and best run time of ``jax.jit(function)(*arguments)``."""
    size = equations(jax.make_jaxpr(function)(*arguments).jaxpr)
    started = time.perf_counter()
    compiled = jax.jit(function).lower(*arguments).compile()
    compile_seconds = time.perf_counter() - started
    jax.block_until_ready(compiled(*arguments))
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(compiled(*arguments))
        best = min(best, time.perf_counter() - started)
    return {"equations": size, "compile_s": compile_seconds, "seconds": best}


def main(argv: list[str] | None = None) -> None:
    """Measure and print the table and the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=20, help="timed runs; the best counts")
    parser.add_argument("--python-steps", type=int, default=5_000, help="PettingZoo and core")
    args = parser.parse_args(argv)
    if args.batch < 1 or args.repeats < 1 or args.python_steps < 1:
        parser.error("batch, repeats and python steps must be 1 or more")
    load_before = os.getloadavg()[0]
    env = make(args.players, max_rounds=None)
    t = env.tables
    batch = args.batch
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    pick = jax.jit(random_legal_action)
    state = init(keys)
    for i in range(WARM_STEPS):
        key = jax.random.PRNGKey(i + 1)
        state = step(state, pick(key, state.legal_action_mask), jax.random.split(key, batch))
    action = pick(jax.random.PRNGKey(99), state.legal_action_mask)
    seat = jnp.maximum(state.current_player, 0)
    logits = jax.random.normal(jax.random.PRNGKey(5), (batch, t.num_actions))
    mask = state.legal_action_mask

    def masked_categorical(key: jax.Array) -> jax.Array:
        return jax.random.categorical(key, jnp.where(mask, logits, -jnp.inf))

    cases: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
        "env.step": (jax.vmap(env.step), (state, action, keys)),
        "env.init": (jax.vmap(env.init), (keys,)),
        "engine.step": (jax.vmap(lambda s, a, k: engine.step(t, s, a, k)), (state, action, keys)),
        "engine.legal_mask": (jax.vmap(lambda s: engine.legal_mask(t, s)), (state,)),
        "engine.observe": (jax.vmap(lambda s, p: engine.observe(t, s, p)), (state, seat)),
        "engine.init": (jax.vmap(lambda k: engine.init(t, k, None)), (keys,)),
        "jax.random.categorical (masked)": (masked_categorical, (jax.random.PRNGKey(3),)),
        "random_legal_action": (random_legal_action, (jax.random.PRNGKey(3), mask)),
        "sample_legal_action": (sample_legal_action, (jax.random.PRNGKey(3), logits, mask)),
    }
    for name in sorted(engine.PROFILED):
        part = engine.PROFILED[name]
        cases[f"engine.{name}"] = (
            jax.vmap(lambda s, k, part=part: part(t, s, k)),
            (state, keys),
        )
    rows = {}
    for name, (function, arguments) in cases.items():
        row = profile(function, arguments, args.repeats)
        row["us_per_game"] = row["seconds"] / batch * 1e6
        rows[name] = row
    zoo = pettingzoo_steps_per_second(args.players, args.python_steps)
    core = core_decisions_per_second(args.players, args.python_steps)
    figures = {
        "players": args.players,
        "batch": batch,
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "pettingzoo_steps_per_s": round(zoo),
        "core_decisions_per_s": round(core),
        "functions": rows,
    }
    print("| function | µs per game | per second | jaxpr equations | compile (s) |")
    print("|---|---:|---:|---:|---:|")
    for name, row in rows.items():
        print(
            f"| `{name}` | {row['us_per_game']:.2f} | {1e6 / row['us_per_game']:,.0f} | "
            f"{row['equations']:,} | {row['compile_s']:.1f} |"
        )
    print(f"| the core (`legal_moves` + `apply_move`) | | {core:,.0f} | | |")
    print(f"| the PettingZoo env | | {zoo:,.0f} | | |")
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
