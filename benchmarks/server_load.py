"""Load on the game server: N concurrent two-person matches of scripted
websocket clients on loopback, through one server process or several
sharing a PostgreSQL database, each client connecting to a process picked
at random.

At a person's pace (``--think 1 3``: each seat thinks 1 to 3 s before its
move) it measures the time from a move sent to its broadcast received by
its sender (p50, p99); with ``--think 0 0`` every client moves as soon as
it may, and the moves a second the server sustains are the figure. The
server processes run on ``--server-cores``, the clients in
``--client-workers`` processes on ``--client-cores``. Reports one JSON
line: moves, moves a second, latency, the servers' CPU time per move and
memory, the clients' CPU. Loopback only, bounded in time; stops by itself.

    python benchmarks/server_load.py --matches 1000 --think 1 3 --seconds 120
    python benchmarks/server_load.py --matches 200 --think 0 0 --seconds 60
    python benchmarks/server_load.py --processes 3 --database postgresql://USER:PASS@HOST/DB

Needs the ``server-bench`` extra: ``pip install -e '.[server-bench]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from server_clients import ServerProcess, cores, new_matches, percentile, play_in_workers


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(args: argparse.Namespace, folder: str) -> dict[str, Any]:
    database = args.database or f"sqlite:///{Path(folder) / 'load.sqlite3'}"
    servers = [
        ServerProcess(database, folder, f"load{i}", free_port(), cores(args.server_cores))
        for i in range(args.processes)
    ]
    try:
        urls = [server.url for server in servers]
        made = new_matches(urls, args.matches, [None, None], args.seed)
        players = [
            {
                "urls": [server.ws_url for server in servers],
                "match": match,
                "token": token,
                "seed": args.seed * 1_000_003 + number * 2 + seat,
                "think": tuple(args.think),
            }
            for number, (match, tokens) in enumerate(made)
            for seat, token in enumerate(tokens)
        ]
        before = [server.figures()[0] for server in servers]
        started = time.perf_counter()
        results, client_cpu = play_in_workers(
            players, args.client_workers, cores(args.client_cores), args.seconds
        )
        took = time.perf_counter() - started
        after = [server.figures() for server in servers]
    finally:
        for server in servers:
            server.stop()
    moves = sum(len(player["acks"]) for player in results)
    latencies = [t for player in results for t in player["latencies"]]
    server_cpu = sum(cpu for cpu, _ in after) - sum(before)
    return {
        "database": database.split(":")[0],
        "processes": args.processes,
        "matches": args.matches,
        "think_s": list(args.think),
        "finished": sum(player["over"] for player in results) // 2,
        "moves": moves,
        "seconds": round(took, 1),
        "moves_per_s": round(moves / took, 1),
        "latency_p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
        "latency_p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "server_cpu_ms_per_move": round(server_cpu * 1000 / max(1, moves), 3),
        "server_rss_mb": [round(rss, 1) for _, rss in after],
        "client_cpu_ms_per_move": round(client_cpu * 1000 / max(1, moves), 3),
        "rate_refusals": sum(player["slowed"] for player in results),
        "server_cores": args.server_cores,
        "client_cores": args.client_cores,
        "client_workers": args.client_workers,
        "machine_cores": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--processes", type=int, default=1, help="server processes (3: PostgreSQL)")
    parser.add_argument(
        "--database", default=None, help="default: an SQLite file in a temporary folder"
    )
    parser.add_argument(
        "--think", type=float, nargs=2, default=(1.0, 3.0), metavar=("LOW", "HIGH"),
        help="seconds a seat thinks before its move, at random between (default 1 3)",
    )  # fmt: skip
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the clients play")
    parser.add_argument("--server-cores", default="0", help="cores of the server processes")
    parser.add_argument("--client-cores", default="1", help="cores of the clients' processes")
    parser.add_argument("--client-workers", type=int, default=2, help="clients' processes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.matches <= 5000 or not 1 <= args.processes <= 16:
        parser.error("--matches: 1 to 5000; --processes: 1 to 16")
    if args.processes > 1 and not (args.database or "").startswith("postgresql"):
        parser.error("several processes share a PostgreSQL database (--database postgresql://...)")
    if not 0 <= args.think[0] <= args.think[1] <= 60 or not 1 <= args.seconds <= 3600:
        parser.error("--think: 0 <= LOW <= HIGH <= 60; --seconds: 1 to 3600")
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(run(args, folder)))


if __name__ == "__main__":
    main()
