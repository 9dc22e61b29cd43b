"""Speed of the reinforcement-learning adapters, against the engine in the same run.

Run ``python benchmarks/rl.py`` (``--quick`` for a short run); it needs the
``rl`` extra. Every figure is the median of 5 repeats with fixed seeds. The
table is for people; the last line is one JSON object with every figure.

What is measured, for 2, 3 and 4 players:

- µs per env step: the raw PettingZoo environment played with random masked
  actions, the standard loop ``last()`` then ``step(action)``. Only those two
  calls are timed: ``last()`` builds the acting agent's observation tensor
  and action mask, ``step()`` applies the move. The action is drawn uniformly
  from the mask, outside the timing. Episodes are cut at round 30, as in the
  engine playout, and a new one starts (its ``reset`` is not timed). The
  environment and the engine play in turns of 200 steps, so that a shared
  machine's changing load falls on both alike.
- the same through :func:`troedler.adapters.pettingzoo.env`, with the
  standard wrappers;
- µs per engine decision in the same process: ``legal_moves`` listed, one
  chosen at random, ``apply_move`` (as ``benchmarks/bench.py`` measures it);
- their ratio, whose target is at most 2;
- µs per ``observation_tensor`` call, with the table view and with perfect
  recall, over observations of random playouts; and µs per
  ``TensorEncoder.encode_state`` call (the same tensor straight from the
  state, which each environment makes with an encoder of its own) over the
  same positions in order.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from typing import Any

import numpy as np

import troedler
from troedler import apply_move, legal_moves, new_game, observe
from troedler.adapters.pettingzoo import TroedlerEnv, env
from troedler.encoding.tensors import TensorEncoder, observation_tensor, tensor_layout_for

REPEATS = 5
ROUND_CAP = 30


class EnvPlay:
    """Random masked play in an environment, timed in chunks of steps."""

    def __init__(self, players: int, seed: int, *, wrapped: bool) -> None:
        self.game: Any = (env if wrapped else TroedlerEnv)(players=players, max_rounds=ROUND_CAP)
        self.rng = random.Random(seed)
        self.seed = seed
        self.games = 0
        self.game.reset(seed=seed)

    def run(self, steps: int) -> float:
        """Seconds spent in ``last()`` and ``step()`` over ``steps`` steps."""
        game, rng, clock = self.game, self.rng, time.perf_counter
        spent = 0.0
        done = 0
        while done < steps:
            t0 = clock()
            observation, _reward, termination, truncation, _info = game.last()
            t1 = clock()
            if termination or truncation:
                self.games += 1
                game.reset(seed=self.seed * 1000 + self.games)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
            t2 = clock()
            game.step(action)
            spent += (clock() - t2) + (t1 - t0)
            done += 1
        return spent


class EnginePlay:
    """Random play with the engine alone, timed in chunks of decisions."""

    def __init__(self, players: int, seed: int) -> None:
        self.players = players
        self.rng = random.Random(seed)
        self.seed = seed
        self.games = 0
        self.state = new_game(players, seed=seed)

    def run(self, decisions: int) -> float:
        """Seconds spent in ``legal_moves`` and ``apply_move`` over ``decisions``."""
        rng, clock = self.rng, time.perf_counter
        state = self.state
        spent = 0.0
        for _ in range(decisions):
            if state.is_over or state.round > ROUND_CAP:
                self.games += 1
                state = new_game(self.players, seed=self.seed * 1000 + self.games)
            t0 = clock()
            moves = legal_moves(state)
            state = apply_move(state, moves[rng.randrange(len(moves))])
            spent += clock() - t0
        self.state = state
        return spent


def step_and_decision_us(players: int, steps: int, seed: int) -> tuple[float, float, float]:
    """µs per raw env step, per wrapped env step and per engine decision.

    The three run in turns of 200 steps, so that a shared machine's changing
    load falls on all three alike.
    """
    raw, wrapped = EnvPlay(players, seed, wrapped=False), EnvPlay(players, seed, wrapped=True)
    engine = EnginePlay(players, seed)
    spent = [0.0, 0.0, 0.0]
    chunk = 200
    for _ in range(max(1, steps // chunk)):
        spent[0] += raw.run(chunk)
        spent[1] += wrapped.run(chunk)
        spent[2] += engine.run(chunk)
    total = max(1, steps // chunk) * chunk
    return spent[0] / total * 1e6, spent[1] / total * 1e6, spent[2] / total * 1e6


def tensor_us(players: int, calls: int, seed: int) -> dict[str, float]:
    """µs per tensor: ``observation_tensor`` of ready observations and
    a :class:`TensorEncoder`'s ``encode_state`` of the positions, each with the table view and with
    perfect recall, over the positions of random playouts in order."""
    rng = random.Random(seed)
    positions: list[tuple[Any, int]] = []
    state = new_game(players, seed=seed)
    while len(positions) < calls:
        if state.is_over or state.round > ROUND_CAP:
            state = new_game(players, seed=seed + len(positions))
        positions.append((state, rng.randrange(players)))
        moves = legal_moves(state)
        state = apply_move(state, moves[rng.randrange(len(moves))])
    figures = {}
    for recall in ("table", "perfect"):
        seen = [observe(state, seat, recall=recall) for state, seat in positions]
        start = time.perf_counter()
        for observation in seen:
            observation_tensor(observation)
        figures[recall] = (time.perf_counter() - start) / calls * 1e6
        # An encoder of its own, as an environment keeps one.
        encode = TensorEncoder(tensor_layout_for(players)).encode_state
        start = time.perf_counter()
        for state, seat in positions:
            encode(state, seat, recall)
        figures[f"state_{recall}"] = (time.perf_counter() - start) / calls * 1e6
    return figures


def rl_figures(quick: bool = False) -> dict[str, float]:
    """Every figure of this benchmark, keyed as in its JSON line."""
    scale = 0.02 if quick else 1.0
    steps = int(10_000 * scale)
    figures: dict[str, float] = {}
    seeds = range(1, REPEATS + 1)
    for players in (2, 3, 4):
        runs = [step_and_decision_us(players, steps, seed) for seed in seeds]
        raw, wrapped, engine = (statistics.median(run[i] for run in runs) for i in range(3))
        figures[f"env_step_us_{players}p"] = raw
        figures[f"wrapped_env_step_us_{players}p"] = wrapped
        figures[f"engine_decision_us_{players}p"] = engine
        figures[f"step_per_decision_{players}p"] = raw / engine
        tensors = [tensor_us(players, int(2_000 * scale), seed) for seed in seeds]
        figures[f"tensor_us_{players}p"] = statistics.median(t["table"] for t in tensors)
        figures[f"tensor_perfect_us_{players}p"] = statistics.median(t["perfect"] for t in tensors)
        figures[f"state_tensor_us_{players}p"] = statistics.median(
            t["state_table"] for t in tensors
        )
        figures[f"state_tensor_perfect_us_{players}p"] = statistics.median(
            t["state_perfect"] for t in tensors
        )
    return figures


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (noisier figures)")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {
        "troedler": troedler.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "quick": args.quick,
        "round_cap": ROUND_CAP,
        **rl_figures(args.quick),
    }
    print(
        f"troedler {figures['troedler']} on Python {figures['python']} ({figures['machine']})"
        + (" -- quick run" if args.quick else "")
    )
    print(
        f"{'players':>8} {'µs/env step':>12} {'wrapped':>9} {'µs/decision':>12} "
        f"{'ratio':>6} {'µs/tensor':>10} {'perfect':>8} {'from state':>11} {'perfect':>8}"
    )
    for p in (2, 3, 4):
        print(
            f"{p:>8} {figures[f'env_step_us_{p}p']:>12.1f} "
            f"{figures[f'wrapped_env_step_us_{p}p']:>9.1f} "
            f"{figures[f'engine_decision_us_{p}p']:>12.1f} "
            f"{figures[f'step_per_decision_{p}p']:>6.2f} {figures[f'tensor_us_{p}p']:>10.1f} "
            f"{figures[f'tensor_perfect_us_{p}p']:>8.1f} "
            f"{figures[f'state_tensor_us_{p}p']:>11.1f} "
            f"{figures[f'state_tensor_perfect_us_{p}p']:>8.1f}"
        )
    print(json.dumps(figures, sort_keys=True))
    return figures


if __name__ == "__main__":
    main()
