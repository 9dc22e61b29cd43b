"""The win share of trained weights against the random bot, in the Python tournament.

Plays each weight file as :class:`troedler.bots.neural.NeuralBot` (numpy
only, no JAX) against ``RandomBot`` in 2-player games, the seats taking
turns, and prints its win share with the 95% Wilson interval:

    python examples/ppo_evaluate.py ppo-2p-initial.npz ppo-2p.npz --games 600 --workers 2

The same games (the tournament's seeds) are played for every file.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from troedler.bots.neural import load_policy
from troedler.simulation import tournament


def evaluate(path: Path, games: int, *, seed: int = 1000, workers: int = 1) -> dict[str, Any]:
    """The figures of the network at ``path`` against the random bot."""
    players = load_policy(path).players
    label = f"troedler.bots.neural:NeuralBot:{path}"
    started = time.perf_counter()
    summary = tournament(
        [label, "random"], games=games, players=players, seed=seed, workers=workers
    )
    figures = summary.bot(label)
    return {
        "weights": str(path),
        "games": summary.games,
        "finished": summary.finished,
        "wins": figures.wins,
        "win_share": figures.win_share,
        "win_share_95": figures.win_share_95,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", type=Path, nargs="+")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    arguments = parser.parse_args()
    for path in arguments.weights:
        result = evaluate(path, arguments.games, seed=arguments.seed, workers=arguments.workers)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
