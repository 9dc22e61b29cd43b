"""Load on the game server: N concurrent two-person matches of scripted
websocket clients on loopback, played to the end.

Reports moves per second, p50 and p99 latency (a move sent to its broadcast
received by its sender), the server's memory and its CPU time per move, as
one JSON line. Loopback only, bounded in matches and time; stops by itself.

    python benchmarks/server_load.py --matches 50
    python benchmarks/server_load.py --matches 50 --database postgresql://USER:PASS@127.0.0.1/DB
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from server_clients import Seat, Served, figures_of, new_match, percentile


async def run(served: Served, matches: int, seconds: float) -> dict[str, object]:
    seats = []
    for number in range(matches):
        match, tokens = new_match(served, [None, None])
        seats += [Seat(served, match, token, seed=number * 2 + i) for i, token in enumerate(tokens)]
    before = figures_of(served)
    started = time.perf_counter()
    deadline = time.monotonic() + seconds
    await asyncio.gather(*(seat.play(deadline) for seat in seats))
    took = time.perf_counter() - started
    after = figures_of(served)
    moves = sum(len(seat.acks) for seat in seats)
    latencies = [t for seat in seats for t in seat.latencies]
    return {
        "matches": matches,
        "finished": sum(seat.over for seat in seats) // 2,
        "moves": moves,
        "seconds": round(took, 2),
        "moves_per_s": round(moves / took, 1),
        "latency_p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
        "latency_p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "server_rss_mb": round(after["rss_mb"], 1),
        "server_cpu_ms_per_move": round(
            (after["cpu_s"] - before["cpu_s"]) * 1000 / max(1, moves), 3
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument(
        "--database", default=None, help="default: an SQLite file in a temporary folder"
    )
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this long")
    args = parser.parse_args()
    if not 1 <= args.matches <= 2000:
        parser.error("--matches: 1 to 2000")
    with tempfile.TemporaryDirectory() as folder:
        database = args.database or f"sqlite:///{Path(folder) / 'load.sqlite3'}"
        served = Served(database, Path(folder))
        try:
            figures = asyncio.run(run(served, args.matches, min(args.seconds, 3600.0)))
        finally:
            served.stop()
    figures["database"] = database.split(":")[0]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
