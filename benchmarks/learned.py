"""What the learned bot costs: its time per move, and a training generation's rates.

For 2 and 4 players, in this process:

- the learned bot (``neural``, the shipped network) against greedy bots,
  each decision with more than one legal move timed: mean, 99th percentile
  and most, in milliseconds;
- self-play games of the shipped network per second, played as a
  generation plays them (one move of look-ahead; the bulk of a generation's
  games);
- the search's labelling of those games (``--iterations`` per decision, a
  quarter of the decisions): decisions labelled per second and rows per second;
- with ``--search N,M``, the time per move of ``ismcts:N`` and of the search
  guided by the network, ``ismcts:M:neural``, against greedy bots, so that
  the guided search is sized to the plain one's time.

A generation is sized from the last two (docs/rl.md)::

    .venv/bin/pip install -e '.[rl]'
    .venv/bin/python benchmarks/learned.py            # --games, --iterations, --quick
    .venv/bin/python benchmarks/learned.py --search 200,150

The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from troedler.bots import Bot, GreedyBot, play_game
from troedler.bots.base import check_players
from troedler.bots.learned import LearnedBot, shipped_network
from troedler.core.moves import Move
from troedler.learning.games import line_of
from troedler.learning.labels import Labelling, label_game
from troedler.seat import Observation
from troedler.simulation import game_seed
from troedler.simulation.games import GameSpec, play
from troedler.simulation.lineup import bot_from_text


class Timed:
    """Wraps a bot and keeps the time of each decision it had to think about."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []

    def check_players(self, num_players: int) -> None:
        check_players(self.bot, num_players)  # reads the network before the game

    def choose(self, observation: Observation, legal_moves: Sequence[Move], rng: Any) -> Move:
        started = time.perf_counter()
        move = self.bot.choose(observation, legal_moves, rng)
        if len(legal_moves) > 1:
            self.times.append(time.perf_counter() - started)
        return move


def move_times(players: int, games: int, seed: int, bot: str = "neural") -> dict[str, Any]:
    """Milliseconds per decision of ``bot`` (a bot text) against greedy bots."""
    timed = Timed(bot_from_text(bot))
    for game in range(games):
        bots: list[Any] = [GreedyBot()] * players
        bots[game % players] = timed
        play_game(bots, seed=game_seed(seed, game), max_rounds=100)
    times = sorted(1000 * t for t in timed.times)
    return {
        "decisions": len(times),
        "mean_ms": round(statistics.fmean(times), 3),
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
        "max_ms": round(times[-1], 3),
    }


def rates(players: int, games: int, iterations: int, seed: int) -> dict[str, Any]:
    """Self-play games per second, and the labelling of those games."""
    network = shipped_network(players)
    makers = {"best": lambda: LearnedBot(network, follow_ups=0, exploration=0.05, name="best")}
    started = time.perf_counter()
    reports = [
        play(GameSpec(i, game_seed(seed, i), ("best",) * players, 100, True), makers)
        for i in range(games)
    ]
    playing = time.perf_counter() - started
    labelling = Labelling(iterations=iterations, share=0.25)
    started = time.perf_counter()
    decisions = rows = 0
    for i, report in enumerate(reports):
        found = label_game(line_of(report), network, labelling, seed=seed, game=i)
        decisions += len({int(d) for d in found["decision"] if d >= 0})
        rows += len(found["decision"])
    labelled = time.perf_counter() - started
    return {
        "games": games,
        "games_per_s": round(games / playing, 3),
        "moves_per_game": round(statistics.fmean(len(line_of(r).actions) for r in reports), 1),
        "iterations": iterations,
        "decisions_labelled": decisions,
        "labelled_per_s": round(decisions / labelled, 2),
        "rows_per_s": round(rows / labelled, 1),
        "seconds_per_game_labelled": round(labelled / games, 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games per figure (8)")
    parser.add_argument("--iterations", type=int, default=100, help="search iterations (100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="1 game each, 10 iterations")
    parser.add_argument(
        "--search", metavar="N,M", help="also time ismcts:N and ismcts:M:neural a move"
    )
    args = parser.parse_args(argv)
    searches: list[str] = []
    if args.search:
        plain, _, guided = args.search.partition(",")
        searches = [f"ismcts:{plain}", f"ismcts:{guided or plain}:neural"]
    if args.quick:
        args.games, args.iterations = 1, 10
    random.seed(args.seed)
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    for players in (2, 4):
        times = move_times(players, args.games, args.seed)
        figures[f"move_{players}p"] = times
        figures[f"generation_{players}p"] = rates(players, args.games, args.iterations, args.seed)
        print(
            f"{players} players: {times['mean_ms']:.2f} ms a move "
            f"(99th percentile {times['p99_ms']:.2f}, most {times['max_ms']:.2f}); "
            f"{figures[f'generation_{players}p']}",
            flush=True,
        )
        for text in searches:
            searched = move_times(players, args.games, args.seed, text)
            figures[f"move_{players}p_{text}"] = searched
            print(
                f"{players} players: {text} {searched['mean_ms']:.1f} ms a move "
                f"(99th percentile {searched['p99_ms']:.1f})",
                flush=True,
            )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
