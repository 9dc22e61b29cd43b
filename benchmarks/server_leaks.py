"""Leaks: the differential check of the server's messages over many seeds and
every player count, with both recalls (``troedler.server.twin_messages``).

Reports the messages compared and the differences (must be 0), as one JSON line.

    python benchmarks/server_leaks.py --seeds 10
"""

from __future__ import annotations

import argparse
import json
import time

from troedler.server.twin_messages import Comparison, compare_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="games per player count and recall")
    parser.add_argument("--every", type=int, default=5, help="deal twins at every N-th move")
    parser.add_argument("--walk", type=int, default=12, help="moves compared after each twin")
    args = parser.parse_args()
    if not 1 <= args.seeds <= 10_000:
        parser.error("--seeds: 1 to 10000")
    comparison = Comparison()
    started = time.perf_counter()
    for players in (2, 3, 4):
        for recall in ("perfect", "table"):
            for seed in range(args.seeds):
                compare_game(
                    players, seed, recall, every=args.every, walk=args.walk, comparison=comparison
                )
    print(
        json.dumps(
            {
                "games": 6 * args.seeds,
                "messages_compared": comparison.messages,
                "differences": len(comparison.differences),
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
