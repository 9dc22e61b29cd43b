"""Steps per second of the JAX engine, beside the PettingZoo env and the core.

For each batch size, two loops of :func:`troedler.jax.random_play` are
compiled (the compile time is reported), warmed up, then timed: random legal
actions (:func:`troedler.jax.random_legal_action`) and ``env.step`` inside
one jit-compiled ``jax.lax.scan``,

- ``none``: games that end stay ended (their idle steps are not counted):
  the speed of ``env.step`` on running games;
- ``auto_reset``: the engine's :func:`troedler.jax.auto_reset` starts a new
  game the step after one ends;

and, at one batch size, pgx's own ``pgx.experimental.auto_reset``. In the same
run the Python PettingZoo env (``last()`` and ``step()`` with a random legal
action from the mask) and the core (``legal_moves`` then ``apply_move``)
are timed, and the ratios printed. Also the bytes one game of the batch
takes, the device's memory in use where it reports it (a GPU does; a CPU
does not), and the machine's load.

    python benchmarks/jax_env.py --players 4
    python benchmarks/jax_env.py --batches 1024,16384,65536 --steps 2000000  # on a GPU

It runs unchanged on any device JAX finds (``JAX_PLATFORMS=cuda`` or ``cpu``
chooses). Prints a Markdown table, then one JSON line with every figure.
Needs the ``jax`` and ``rl`` extras.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from typing import Any

import jax
import numpy as np

from troedler import apply_move, legal_moves, new_game
from troedler.adapters.pettingzoo import env as pettingzoo_env
from troedler.jax import make
from troedler.jax.play import _program

MAX_ROUNDS = 100
"""The round cap of both environments (the PettingZoo env's default)."""

NO_RESET = 1 << 30
"""``reset_every`` so large that no game is reset: the loop of running games."""


def device_memory() -> dict[str, int] | None:
    """The device's bytes in use and at most so far, where it reports them."""
    stats = jax.devices()[0].memory_stats()
    if not stats:
        return None
    return {
        name: int(stats[name]) for name in ("bytes_in_use", "peak_bytes_in_use") if name in stats
    }


def jax_steps_per_second(
    players: int, batch: int, steps: int, repeats: int, reset: str
) -> dict[str, Any]:
    """Compile time and best steps per second of ``batch`` games for ``steps`` steps.

    ``reset`` is ``none``, ``auto_reset`` (the engine's) or ``pgx`` (pgx's
    ``auto_reset``).
    """
    env = make(players, max_rounds=MAX_ROUNDS)
    reset_every = NO_RESET if reset == "none" else None
    program = _program(env, batch, steps, reset_every, reset == "pgx")
    key = jax.random.PRNGKey(0)
    started = time.perf_counter()
    compiled = program.lower(key).compile()
    compile_seconds = time.perf_counter() - started
    jax.block_until_ready(compiled(key))  # warm-up
    best = float("inf")
    played = batch * steps
    for repeat in range(repeats):
        started = time.perf_counter()
        _state, counts = jax.block_until_ready(compiled(jax.random.PRNGKey(repeat + 1)))
        seconds = time.perf_counter() - started
        if seconds < best:
            # Steps of running games only: a game that ended idles.
            best, played = seconds, int(counts[2])
    return {
        "batch": batch,
        "reset": {"none": "none", "auto_reset": "auto_reset", "pgx": "pgx auto_reset"}[reset],
        "compile_s": compile_seconds,
        "steps_per_s": played / best,
        "device_memory": device_memory(),
        "load": round(os.getloadavg()[0], 2),
    }


def pettingzoo_steps_per_second(players: int, steps: int) -> float:
    """Steps per second of the wrapped PettingZoo env under random masked play."""
    rng = random.Random(1)
    game = pettingzoo_env(players=players, max_rounds=MAX_ROUNDS)
    game.reset(seed=1)
    games = done = 0
    started = time.perf_counter()
    while done < steps:
        observation, _reward, termination, truncation, _info = game.last()
        if termination or truncation:
            games += 1
            game.reset(seed=1000 + games)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        game.step(int(legal[rng.randrange(len(legal))]))
        done += 1
    return steps / (time.perf_counter() - started)


def core_decisions_per_second(players: int, decisions: int) -> float:
    """Decisions per second of the core alone: ``legal_moves`` then ``apply_move``."""
    rng = random.Random(1)
    games = 0
    state = new_game(players, seed=1)
    started = time.perf_counter()
    for _ in range(decisions):
        if state.is_over or state.round > MAX_ROUNDS:
            games += 1
            state = new_game(players, seed=1000 + games)
        moves = legal_moves(state)
        state = apply_move(state, moves[rng.randrange(len(moves))])
    return decisions / (time.perf_counter() - started)


def bytes_per_game(players: int) -> int:
    """The bytes of one game's arrays, pgx's fields (observation, mask) included."""
    shapes = jax.eval_shape(make(players).init, jax.random.PRNGKey(0))
    return sum(leaf.size * leaf.dtype.itemsize for leaf in jax.tree_util.tree_leaves(shapes))


def main(argv: list[str] | None = None) -> None:
    """Measure and print the table and the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--batches", default="1,64,1024,4096", help="comma-separated sizes")
    parser.add_argument("--steps", type=int, default=200_000, help="steps per timed run, about")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--python-steps", type=int, default=5_000, help="PettingZoo and core")
    parser.add_argument(
        "--pgx-reset-batch", type=int, default=1024, help="also time pgx's auto_reset (0: no)"
    )
    args = parser.parse_args(argv)
    batches = [int(b) for b in args.batches.split(",")]
    if min(batches) < 1 or args.steps < 1 or args.repeats < 1 or args.python_steps < 1:
        parser.error("batch sizes, steps, repeats and python steps must be 1 or more")
    load_before = os.getloadavg()[0]
    zoo = pettingzoo_steps_per_second(args.players, args.python_steps)
    core = core_decisions_per_second(args.players, args.python_steps)
    runs = [(batch, reset) for batch in batches for reset in ("none", "auto_reset")]
    if args.pgx_reset_batch:
        runs.append((args.pgx_reset_batch, "pgx"))
    rows = []
    for batch, reset in runs:
        # Long enough runs at small batches, short scans at large ones.
        scan = max(20, min(2_000, args.steps // batch))
        row = jax_steps_per_second(args.players, batch, scan, args.repeats, reset)
        row["ratio_to_pettingzoo"] = row["steps_per_s"] / zoo
        row["ratio_to_core"] = row["steps_per_s"] / core
        rows.append(row)
    zoo_after = pettingzoo_steps_per_second(args.players, args.python_steps)
    core_after = core_decisions_per_second(args.players, args.python_steps)
    figures = {
        "players": args.players,
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
        "cpus": os.cpu_count(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "pettingzoo_steps_per_s": [round(zoo), round(zoo_after)],
        "core_decisions_per_s": [round(core), round(core_after)],
        "bytes_per_game": bytes_per_game(args.players),
        "batches": rows,
    }
    print(
        "| batch | resets | steps/s | times the PettingZoo env | times the core "
        "| compile (s) | device memory (MB) | load |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        memory = row["device_memory"]
        used = f"{memory['peak_bytes_in_use'] / 1e6:,.0f}" if memory else "n/a"
        print(
            f"| {row['batch']:,} | {row['reset']} | {row['steps_per_s']:,.0f} | "
            f"{row['ratio_to_pettingzoo']:.1f} | {row['ratio_to_core']:.1f} | "
            f"{row['compile_s']:.1f} | {used} | {row['load']} |"
        )
    print(f"| PettingZoo env | | {zoo:,.0f} (after: {zoo_after:,.0f}) | 1 | | | | |")
    print(f"| core decisions | | {core:,.0f} (after: {core_after:,.0f}) | | 1 | | | |")
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
