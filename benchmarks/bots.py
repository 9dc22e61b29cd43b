"""How strong the bundled bots are: four-player games with seats rotated.

Run ``python benchmarks/bots.py`` (``--quick`` for a short run). Two line-ups
are played, each over ``--games`` games (400 by default) with the bots
rotated one seat further every game:

- one ``GreedyBot`` against three ``RandomBot`` s;
- one ``ISMCTSBot`` (``--iterations`` per move, 200 by default) against three
  ``GreedyBot`` s.

For the bot under test it reports the win share over every game (a game
stopped at the round cap counts as not won) and over the finished games,
each with its 95% interval, and the seconds the ISMCTS bot takes per move
(measured on its own, in this process, over ``--timed-games`` games). The
table is for people; the last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from troedler.bots import GreedyBot, ISMCTSBot, play_game
from troedler.core.moves import Move
from troedler.seat import Observation
from troedler.simulation import default_workers, game_seed, tournament, wilson_interval


def strength(
    subject: str, others: str, *, games: int, seed: int, max_rounds: int, workers: int
) -> dict[str, Any]:
    """Play ``subject`` against three ``others`` and report its results."""
    line_up = [subject, others, others, others]
    started = time.perf_counter()
    summary = tournament(line_up, games=games, seed=seed, max_rounds=max_rounds, workers=workers)
    seconds = time.perf_counter() - started
    mine = summary.bot(subject)
    wins = mine.wins
    return {
        "line_up": line_up,
        "games": games,
        "finished": summary.finished,
        "wins": wins,
        "win_share_all": wins / games,
        "win_share_all_95": list(wilson_interval(wins, games) or (0.0, 0.0)),
        "win_share_finished": mine.win_share,
        "win_share_finished_95": list(mine.win_share_95) if mine.win_share_95 else None,
        "others_win_share_finished": summary.bot(others).win_share,
        "mean_points": mine.mean_points,
        "mean_rounds": summary.mean_rounds,
        "seconds": seconds,
    }


class _Timed:
    """Wraps a bot and keeps the time of each decision it had to think about."""

    def __init__(self, bot: ISMCTSBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []

    def choose(self, observation: Observation, legal_moves: Sequence[Move], rng: Any) -> Move:
        started = time.perf_counter()
        move = self.bot.choose(observation, legal_moves, rng)
        if len(legal_moves) > 1:
            self.times.append(time.perf_counter() - started)
        return move


def move_times(iterations: int, games: int, seed: int, max_rounds: int) -> dict[str, float]:
    """Seconds per ISMCTS decision against three greedy bots, in this process."""
    timed = _Timed(ISMCTSBot(iterations=iterations))
    for game in range(games):
        bots: list[Any] = [GreedyBot()] * 4
        bots[game % 4] = timed
        play_game(bots, seed=game_seed(seed, game), max_rounds=max_rounds)
    times = sorted(timed.times)
    return {
        "decisions": len(times),
        "mean": statistics.fmean(times),
        "p99": times[min(len(times) - 1, int(0.99 * len(times)))],
        "max": times[-1],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per line-up (400)")
    parser.add_argument("--iterations", type=int, default=200, help="ISMCTS iterations (200)")
    parser.add_argument("--workers", type=int, default=default_workers(), help="processes")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (1)")
    parser.add_argument("--max-rounds", type=int, default=100, help="round cap (100)")
    parser.add_argument("--timed-games", type=int, default=4, help="games for move times (4)")
    parser.add_argument("--quick", action="store_true", help="a short run: 8 games, 10 iterations")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.iterations, args.timed_games = 8, 10, 1

    common = {"games": args.games, "seed": args.seed, "max_rounds": args.max_rounds}
    greedy = strength("greedy", "random", workers=args.workers, **common)
    ismcts = strength(f"ismcts:{args.iterations}", "greedy", workers=args.workers, **common)
    times = move_times(args.iterations, args.timed_games, args.seed, args.max_rounds)

    print(f"{args.games} four-player games per line-up, seats rotated, seed {args.seed}, "
          f"round cap {args.max_rounds}, {args.workers} workers")  # fmt: skip
    print(f"{'bot under test':<16} {'vs':<8} {'finished':>8} {'wins':>5} "
          f"{'all games (95%)':>22} {'finished (95%)':>22} {'seconds':>8}")  # fmt: skip
    for row in (greedy, ismcts):
        low, high = row["win_share_all_95"]
        finished = "-"
        if row["win_share_finished_95"] is not None:
            flow, fhigh = row["win_share_finished_95"]
            finished = f"{row['win_share_finished']:.1%} ({flow:.1%}-{fhigh:.1%})"
        print(
            f"{row['line_up'][0]:<16} {row['line_up'][1]:<8} {row['finished']:>8} "
            f"{row['wins']:>5} {row['win_share_all']:>7.1%} ({low:.1%}-{high:.1%}) "
            f"{finished:>22} {row['seconds']:>8.0f}"
        )
    print(
        f"ISMCTS seconds per move ({times['decisions']} decisions): mean {times['mean']:.3f}, "
        f"99th percentile {times['p99']:.3f}, max {times['max']:.3f}"
    )
    figures = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "iterations": args.iterations,
        "greedy_vs_random": greedy,
        "ismcts_vs_greedy": ismcts,
        "ismcts_seconds_per_move": times,
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
