"""What Dask costs a tournament: a 2-worker LocalCluster against 2 local workers.

Run ``python benchmarks/tournament.py`` (``--quick`` for a short run). The
same tournament (``--games`` games, 10,000 by default, of the line-up of
``troedler simulate``: one greedy bot against three random ones) is played
twice: by ``--workers`` local worker processes, and on a Dask
``LocalCluster`` with as many single-threaded worker processes on this
machine (loopback only). Both must give the same summary. Reported: games
per second of each, the cluster's start-up time (not counted in its games
per second), and Dask's overhead per game, the difference of the two wall
times over the number of games. The table is for people; the last line is
one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from troedler.simulation import tournament

SRC = Path(__file__).resolve().parents[1] / "src"


def measure(games: int, bots: list[str], seed: int, workers: int) -> dict[str, Any]:
    """Play the tournament locally and on a LocalCluster; the figures."""
    from distributed import LocalCluster  # noqa: PLC0415 - the dask extra

    common: dict[str, Any] = {"games": games, "seed": seed, "max_rounds": 100}
    started = time.perf_counter()
    local = tournament(bots, workers=workers, **common)
    local_seconds = time.perf_counter() - started

    # Workers are new processes: they must import this troedler, not another.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    started = time.perf_counter()
    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        startup = time.perf_counter() - started
        started = time.perf_counter()
        on_dask = tournament(bots, scheduler=cluster.scheduler_address, **common)
        dask_seconds = time.perf_counter() - started
    if on_dask != local:
        raise SystemExit("the cluster's summary differs from the local one")
    return {
        "games": games,
        "bots": bots,
        "workers": workers,
        "finished": local.finished,
        "local_seconds": local_seconds,
        "local_games_per_s": games / local_seconds,
        "dask_startup_seconds": startup,
        "dask_seconds": dask_seconds,
        "dask_games_per_s": games / dask_seconds,
        "dask_overhead_ms_per_game": 1000 * (dask_seconds - local_seconds) / games,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games (10,000)")
    parser.add_argument("--workers", type=int, default=2, help="processes, each way (2)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (1)")
    parser.add_argument(
        "--bots", default="greedy,random,random,random", help="the line-up (simulate's default)"
    )
    parser.add_argument("--quick", action="store_true", help="a short run: 16 games")
    args = parser.parse_args(argv)
    games = 16 if args.quick else args.games
    figures = measure(games, args.bots.split(","), args.seed, args.workers)
    print(f"{games} games of {args.bots}, seed {args.seed}, {args.workers} workers each way")
    print(f"{'where':<28} {'seconds':>8} {'games/s':>8}")
    print(f"{'local worker processes':<28} {figures['local_seconds']:>8.1f} "
          f"{figures['local_games_per_s']:>8.1f}")  # fmt: skip
    print(f"{'Dask LocalCluster':<28} {figures['dask_seconds']:>8.1f} "
          f"{figures['dask_games_per_s']:>8.1f}")  # fmt: skip
    print(
        f"Dask overhead {figures['dask_overhead_ms_per_game']:.2f} ms a game; "
        f"the cluster started in {figures['dask_startup_seconds']:.1f} s"
    )
    figures["python"] = platform.python_version()
    figures["machine"] = platform.machine()
    figures["quick"] = args.quick
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
