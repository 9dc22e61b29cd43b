"""The OpenSpiel game python_troedler: speed through pyspiel, and a small ISMCTS match.

Run ``python benchmarks/openspiel.py`` (``--quick`` for a short run); it
needs the ``openspiel`` extra. The table is for people; the last line is one
JSON object with every figure.

What is measured, for 2, 3 and 4 players:

- seconds per ``pyspiel.random_sim_test`` game (``serialize=True``, which
  also checks every observer for every seat at every decision);
- µs per step of random play through pyspiel, for chance steps
  (``chance_outcomes`` and ``apply_action``) and for decisions
  (``legal_actions`` and ``apply_action``), and for comparison µs per engine
  decision of the same games (``legal_moves`` and ``apply_move``);
- chance nodes, decisions and rounds of games played by uniform random
  bots (median, smallest, largest);
- µs per ``clone()`` of a state in round 5 or so (median of 5 repeats), and
  what ``copy.deepcopy`` of its engine state would cost instead.

And one match of two players: OpenSpiel's Python ISMCTS (random rollouts,
with troedler's resampler) against troedler's ``ISMCTSBot`` playing through
OpenSpiel, the same number of iterations per move, seats alternating, games
capped at a few rounds. A capped game is scored as it stands (see
docs/openspiel.md).
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import random
import statistics
import time
from importlib.metadata import version
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

import troedler
import troedler.adapters.openspiel  # registers python_troedler
from troedler.adapters.openspiel import ISMCTSBot, TroedlerBot
from troedler.bots import ISMCTSBot as EngineISMCTSBot

REPEATS = 5


def _load(players: int, scored_after_rounds: int = 100) -> Any:
    return pyspiel.load_game(
        f"python_troedler(players={players},scored_after_rounds={scored_after_rounds})"
    )


def sim_test_seconds(players: int, sims: int, scored_after_rounds: int = 100) -> float:
    """Seconds per random_sim_test game."""
    game = _load(players, scored_after_rounds)
    start = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
    return (time.perf_counter() - start) / sims


def random_games(players: int, games: int, seed: int) -> dict[str, Any]:
    """Step costs and sizes of games between uniform random players, through pyspiel."""
    game = _load(players)
    rng = random.Random(seed)
    clock = time.perf_counter
    chance_time = decision_time = 0.0
    sizes: list[tuple[int, int, int]] = []
    for _ in range(games):
        state = game.new_initial_state()
        chance = decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                t0 = clock()
                ids, probabilities = zip(*state.chance_outcomes(), strict=True)
                t1 = clock()
                action = rng.choices(ids, probabilities)[0]
                t2 = clock()
                state.apply_action(action)
                chance_time += (clock() - t2) + (t1 - t0)
                chance += 1
            else:
                t0 = clock()
                actions = state.legal_actions()
                t1 = clock()
                action = actions[rng.randrange(len(actions))]
                t2 = clock()
                state.apply_action(action)
                decision_time += (clock() - t2) + (t1 - t0)
                decisions += 1
        sizes.append((chance, decisions, state.engine_state.round))
    return {
        "chance_step_us": chance_time / sum(s[0] for s in sizes) * 1e6,
        "decision_step_us": decision_time / sum(s[1] for s in sizes) * 1e6,
        "sizes": sizes,
    }


def engine_decision_us(players: int, decisions: int, seed: int) -> float:
    """µs per legal_moves + apply_move of random play, seeded games."""
    rng = random.Random(seed)
    clock = time.perf_counter
    spent = 0.0
    games = 0
    state = troedler.new_game(players, seed=seed)
    for _ in range(decisions):
        if state.is_over or state.round > 30:
            games += 1
            state = troedler.new_game(players, seed=seed * 1000 + games)
        t0 = clock()
        moves = troedler.legal_moves(state)
        state = troedler.apply_move(state, moves[rng.randrange(len(moves))])
        spent += clock() - t0
    return spent / decisions * 1e6


def clone_us(players: int, calls: int, seed: int) -> tuple[float, float]:
    """µs per clone() of a state some rounds in, and per deepcopy of its engine state."""
    state = _load(players).new_initial_state()
    rng = random.Random(seed)
    while state.is_chance_node() or state.engine_state.round < 5:
        if state.is_chance_node():
            ids, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(ids, probabilities)[0])
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
    start = time.perf_counter()
    for _ in range(calls):
        state.clone()
    cloned = (time.perf_counter() - start) / calls * 1e6
    engine = state.engine_state
    copies = max(calls // 200, 1)
    start = time.perf_counter()
    for _ in range(copies):
        copy.deepcopy(engine)
    return cloned, (time.perf_counter() - start) / copies * 1e6


def _timed(bot: Any, timer: list[float]) -> Any:
    """``bot`` with its step() timed into ``timer``: seconds, then moves."""
    step = bot.step

    def run(state: Any) -> int:
        start = time.perf_counter()
        action = step(state)
        timer[0] += time.perf_counter() - start
        timer[1] += 1
        return int(action)

    bot.step = run
    return bot


def ismcts_match(
    games: int, iterations: int, scored_after_rounds: int, uct_c: float
) -> dict[str, Any]:
    """OpenSpiel's Python ISMCTS against troedler's ISMCTSBot, two players, seats alternating."""
    game = _load(2, scored_after_rounds)
    spiel_share = ours_share = 0.0
    spiel_seconds = ours_seconds = 0.0
    spiel_moves = ours_moves = 0
    for number in range(games):
        rollouts = mcts.RandomRolloutEvaluator(1, np.random.RandomState(number))
        spiel = ISMCTSBot(game, rollouts, uct_c, iterations, seed=number)
        ours = TroedlerBot(EngineISMCTSBot(iterations=iterations), seed=number)
        timers = {"spiel": [0.0, 0.0], "ours": [0.0, 0.0]}
        spiel_seat = number % 2
        bots: list[Any] = [_timed(ours, timers["ours"])]
        bots.insert(spiel_seat, _timed(spiel, timers["spiel"]))
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(100 + number))
        spiel_share += returns[spiel_seat]
        ours_share += returns[1 - spiel_seat]
        spiel_seconds += timers["spiel"][0]
        spiel_moves += int(timers["spiel"][1])
        ours_seconds += timers["ours"][0]
        ours_moves += int(timers["ours"][1])
    return {
        "games": games,
        "iterations": iterations,
        "scored_after_rounds": scored_after_rounds,
        "uct_c": uct_c,
        "openspiel_ismcts_win_share": spiel_share / games,
        "troedler_ismcts_win_share": ours_share / games,
        "openspiel_seconds_per_move": spiel_seconds / max(spiel_moves, 1),
        "troedler_seconds_per_move": ours_seconds / max(ours_moves, 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (noisier figures)")
    parser.add_argument("--games", type=int, default=10, help="games of the ISMCTS match")
    parser.add_argument("--iterations", type=int, default=50, help="ISMCTS iterations per move")
    parser.add_argument(
        "--scored-after-rounds",
        type=int,
        default=4,
        help="rounds after which a match game is scored",
    )
    parser.add_argument("--uct-c", type=float, default=2.0, help="OpenSpiel ISMCTS exploration")
    args = parser.parse_args(argv)
    quick = args.quick
    repeats = 1 if quick else REPEATS
    figures: dict[str, Any] = {
        "troedler": troedler.__version__,
        "open_spiel": version("open_spiel"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "quick": quick,
    }
    for players in (2, 3, 4):
        figures[f"random_sim_test_s_{players}p"] = sim_test_seconds(players, 1, 2 if quick else 100)
        runs = [random_games(players, 1 if quick else 4, seed) for seed in range(repeats)]
        figures[f"chance_step_us_{players}p"] = statistics.median(r["chance_step_us"] for r in runs)
        figures[f"decision_step_us_{players}p"] = statistics.median(
            r["decision_step_us"] for r in runs
        )
        figures[f"engine_decision_us_{players}p"] = statistics.median(
            engine_decision_us(players, 500 if quick else 10_000, seed) for seed in range(repeats)
        )
        sizes = [size for r in runs for size in r["sizes"]]
        for i, name in enumerate(("chance_nodes", "decisions", "rounds")):
            values = [size[i] for size in sizes]
            figures[f"{name}_{players}p"] = [
                statistics.median(values),
                min(values),
                max(values),
            ]
        clones = [clone_us(players, 200 if quick else 20_000, seed) for seed in range(repeats)]
        figures[f"clone_us_{players}p"] = statistics.median(c[0] for c in clones)
        figures[f"deepcopy_engine_state_us_{players}p"] = statistics.median(c[1] for c in clones)
    figures["ismcts_match"] = (
        ismcts_match(1, 5, 1, args.uct_c)
        if quick
        else ismcts_match(args.games, args.iterations, args.scored_after_rounds, args.uct_c)
    )
    _print(figures)
    print(json.dumps(figures, sort_keys=True))
    return figures


def _print(figures: dict[str, Any]) -> None:
    print(
        f"troedler {figures['troedler']}, open_spiel {figures['open_spiel']}, "
        f"Python {figures['python']} ({figures['machine']})"
        + (" -- quick run" if figures["quick"] else "")
    )
    print(
        f"{'players':>8} {'s/sim test':>10} {'µs/chance':>10} {'µs/decision':>12} "
        f"{'engine':>7} {'µs/clone':>9} {'deepcopy':>9}   chance nodes, decisions, rounds"
    )
    for p in (2, 3, 4):
        print(
            f"{p:>8} {figures[f'random_sim_test_s_{p}p']:>10.2f} "
            f"{figures[f'chance_step_us_{p}p']:>10.1f} {figures[f'decision_step_us_{p}p']:>12.1f} "
            f"{figures[f'engine_decision_us_{p}p']:>7.1f} {figures[f'clone_us_{p}p']:>9.1f} "
            f"{figures[f'deepcopy_engine_state_us_{p}p']:>9.1f}   "
            f"{figures[f'chance_nodes_{p}p']} {figures[f'decisions_{p}p']} "
            f"{figures[f'rounds_{p}p']}"
        )
    match = figures["ismcts_match"]
    print(
        f"ISMCTS match, {match['games']} games of 2 players, {match['iterations']} iterations, "
        f"scored after {match['scored_after_rounds']} rounds: "
        f"OpenSpiel {match['openspiel_ismcts_win_share']:.2f} "
        f"({match['openspiel_seconds_per_move']:.2f} s/move), troedler "
        f"{match['troedler_ismcts_win_share']:.2f} "
        f"({match['troedler_seconds_per_move']:.2f} s/move)"
    )


if __name__ == "__main__":
    main()
