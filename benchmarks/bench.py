"""Benchmarks of troedler's hot path, measured against python-chess in one process.

Run ``python benchmarks/bench.py`` (``--quick`` for a short run). Every figure
is the median of 5 repeats with fixed seeds. The table is for people; the last
line is one JSON object with every figure, for scripts.

What is measured:

- µs per decision in random playouts (legal moves listed, one chosen uniformly
  at random, applied) for 2, 3 and 4 players, and the share of it spent in
  ``legal_moves`` and in ``apply_move``; the most legal moves seen in one state;
- full games per second between bundled bots (greedy and random in
  alternate seats, as in the demo), and between
  random players with a round cap (reported as capped);
- bytes retained per state along a playout, every state kept in a list;
- the board picture (``troedler.svg.board``) of 4-player positions along a
  bot game: its size in bytes and the ms to draw one, whole state and one
  seat's observation; and the bytes of that game's HTML replay;
- with the ``rl`` extra: PettingZoo environment steps against engine decisions,
  and the cost of an observation tensor (``benchmarks/rl.py``);
- python-chess, if installed (``pip install -e '.[bench]'``): one random ply
  (``list(board.legal_moves)`` and ``board.push(move)``) over random games
  from the start position, and our ratio to it.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import troedler
from troedler import GameState, apply_move, legal_moves, new_game
from troedler.bots import GreedyBot, RandomBot, play_game

REPEATS = 5
RANDOM_ROUND_CAP = 30
CHESS_MAX_PLIES = 400


def _median(run: Callable[[], float]) -> float:
    return statistics.median(run() for _ in range(REPEATS))


def playout(players: int, decisions: int, seed: int) -> dict[str, float]:
    """µs per decision, per legal_moves call and per apply_move call."""
    rng = random.Random(seed)
    clock = time.perf_counter
    listing = applying = 0.0
    most_moves = 0
    game = 0
    state = new_game(players, seed=seed)
    for _ in range(decisions):
        if state.is_over or state.round > RANDOM_ROUND_CAP:
            game += 1
            state = new_game(players, seed=seed * 1000 + game)
        t0 = clock()
        moves = legal_moves(state)
        t1 = clock()
        state = apply_move(state, moves[rng.randrange(len(moves))])
        t2 = clock()
        listing += t1 - t0
        applying += t2 - t1
        most_moves = max(most_moves, len(moves))
    return {
        "decision_us": (listing + applying) / decisions * 1e6,
        "legal_moves_us": listing / decisions * 1e6,
        "apply_move_us": applying / decisions * 1e6,
        "most_legal_moves": most_moves,
    }


def bot_games_per_second(players: int, games: int, seed: int) -> float:
    """Whole games, greedy and random bots in alternate seats (as in the demo)."""
    bots = [GreedyBot() if seat % 2 == 0 else RandomBot() for seat in range(players)]
    start = time.perf_counter()
    for game in range(games):
        play_game(bots, seed=seed + game, max_rounds=200)
    return games / (time.perf_counter() - start)


def random_games_per_second(players: int, games: int, seed: int) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    for game in range(games):
        state = new_game(players, seed=seed + game)
        while not state.is_over and state.round <= RANDOM_ROUND_CAP:
            moves = legal_moves(state)
            state = apply_move(state, moves[rng.randrange(len(moves))])
    return games / (time.perf_counter() - start)


def bytes_per_state(players: int, decisions: int, seed: int) -> float:
    """Memory retained per state when every state of a playout is kept.

    The playout runs once first, so that the tables every state shares
    (interned goods, prebuilt moves) are warm and not charged to the states;
    then the same playout runs again under tracemalloc.
    """

    def run() -> list[GameState]:
        rng = random.Random(seed)
        state = new_game(players, seed=seed)
        kept = [state]
        for _ in range(decisions):
            if state.is_over:
                break
            moves = legal_moves(state)
            state = apply_move(state, moves[rng.randrange(len(moves))])
            kept.append(state)
        return kept

    run()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = run()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / len(kept)


def picture_figures(seed: int, draws: int) -> dict[str, float]:
    """Bytes and ms per board picture of 4-player positions, and the replay's bytes."""
    import troedler.svg  # noqa: PLC0415 (the pictures are measured, not the core's import)
    from troedler.server.replay import replay_html  # noqa: PLC0415

    bots = [GreedyBot(), RandomBot(), GreedyBot(), RandomBot()]
    played = play_game(bots, seed=seed, max_rounds=100)
    states = troedler.replay(played.record)
    chosen = [states[i * (len(states) - 1) // (draws - 1)] for i in range(draws)]
    seen = [troedler.observe(state, 0, recall="table") for state in chosen]
    troedler.svg.board(chosen[0])  # the layout is computed once per board
    start = time.perf_counter()
    sizes = [len(troedler.svg.board(state).encode()) for state in chosen]
    state_ms = (time.perf_counter() - start) * 1000 / draws
    start = time.perf_counter()
    for observation in seen:
        troedler.svg.board(observation)
    observation_ms = (time.perf_counter() - start) * 1000 / draws
    return {
        "svg_bytes_4p": statistics.median(sizes),
        "svg_ms_4p": state_ms,
        "svg_observation_ms_4p": observation_ms,
        "replay_html_bytes_4p": len(replay_html(played.record).encode()),
        "replay_html_steps_4p": len(states),
    }


def chess_ply_us(plies: int, seed: int) -> float | None:
    try:
        import chess  # noqa: PLC0415 - optional
    except ImportError:
        return None
    rng = random.Random(seed)
    board = chess.Board()
    clock = time.perf_counter
    spent = 0.0
    done = 0
    while done < plies:
        t0 = clock()
        moves = list(board.legal_moves)
        if moves:
            board.push(moves[rng.randrange(len(moves))])
        spent += clock() - t0
        if not moves or board.ply() >= CHESS_MAX_PLIES:
            board = chess.Board()
            continue
        done += 1
    return spent / plies * 1e6


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (noisier figures)")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    decisions = int(20_000 * scale)
    figures: dict[str, Any] = {
        "troedler": troedler.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "quick": args.quick,
    }
    for players in (2, 3, 4):
        runs = [playout(players, decisions, seed) for seed in range(1, REPEATS + 1)]
        for key in runs[0]:
            figures[f"{key}_{players}p"] = statistics.median(run[key] for run in runs)
        figures[f"most_legal_moves_{players}p"] = max(run["most_legal_moves"] for run in runs)
    games = max(2, int(20 * scale))
    for players in (2, 3, 4):
        figures[f"bot_games_per_s_{players}p"] = _median(
            lambda p=players: bot_games_per_second(p, games, 100)
        )
        figures[f"random_capped_games_per_s_{players}p"] = _median(
            lambda p=players: random_games_per_second(p, games, 200)
        )
    figures["random_round_cap"] = RANDOM_ROUND_CAP
    figures["bytes_per_state_4p"] = statistics.median(
        bytes_per_state(4, int(5_000 * scale), seed) for seed in range(1, REPEATS + 1)
    )
    try:
        from rl import rl_figures  # noqa: PLC0415 (needs the rl extra)
    except ImportError:
        pass
    else:
        figures.update(rl_figures(args.quick))
    pictures = [picture_figures(seed, max(3, int(50 * scale))) for seed in range(1, 4)]
    for key in pictures[0]:
        figures[key] = statistics.median(run[key] for run in pictures)
    chess_us = chess_ply_us(decisions, 1)
    chess_runs = [chess_us] + [chess_ply_us(decisions, seed) for seed in range(2, REPEATS + 1)]
    if chess_us is not None:
        figures["chess_ply_us"] = statistics.median(run for run in chess_runs if run is not None)
        for players in (2, 3, 4):
            figures[f"ratio_to_chess_{players}p"] = (
                figures[f"decision_us_{players}p"] / figures["chess_ply_us"]
            )
    _print_table(figures)
    print(json.dumps(figures, sort_keys=True))
    return figures


def _print_table(f: dict[str, Any]) -> None:
    print(
        f"troedler {f['troedler']} on Python {f['python']} ({f['machine']})"
        + (" -- quick run" if f["quick"] else "")
    )
    print(
        f"{'players':>8} {'µs/decision':>12} {'legal_moves':>12} {'apply_move':>11} "
        f"{'÷ chess':>8} {'bot games/s':>15} {'random games/s':>15}"
    )
    for p in (2, 3, 4):
        ratio = f.get(f"ratio_to_chess_{p}p")
        print(
            f"{p:>8} {f[f'decision_us_{p}p']:>12.1f} {f[f'legal_moves_us_{p}p']:>12.1f} "
            f"{f[f'apply_move_us_{p}p']:>11.1f} {'-' if ratio is None else f'{ratio:.2f}':>8} "
            f"{f[f'bot_games_per_s_{p}p']:>15.1f} {f[f'random_capped_games_per_s_{p}p']:>15.1f}"
        )
    print(f"random games capped at {f['random_round_cap']} rounds")
    print(f"bytes retained per state (4 players): {f['bytes_per_state_4p']:.0f}")
    print(
        f"board picture (4 players): {f['svg_bytes_4p']:.0f} bytes, {f['svg_ms_4p']:.1f} ms "
        f"(observation {f['svg_observation_ms_4p']:.1f} ms); HTML replay "
        f"{f['replay_html_bytes_4p'] / 1e6:.2f} MB for {f['replay_html_steps_4p']:.0f} steps"
    )
    if "env_step_us_4p" in f:
        steps = ", ".join(
            f"{f[f'env_step_us_{p}p']:.1f} µs = {f[f'step_per_decision_{p}p']:.2f} decisions "
            f"({p} players)"
            for p in (2, 3, 4)
        )
        print(f"PettingZoo env step (random masked actions): {steps}")
        print(f"observation tensor (4 players): {f['tensor_us_4p']:.1f} µs per call")
    most = ", ".join(f"{f[f'most_legal_moves_{p}p']} ({p} players)" for p in (2, 3, 4))
    print(f"most legal moves in one state, over all playouts: {most}")
    if "chess_ply_us" in f:
        print(f"python-chess: {f['chess_ply_us']:.1f} µs per random ply")
    else:
        print("python-chess not installed: no ratio (pip install -e '.[bench]')")


if __name__ == "__main__":
    main(sys.argv[1:])
