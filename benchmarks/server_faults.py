"""Faults: matches played while the game server's processes are killed with
SIGKILL at random moments (during commits, broadcasts and bots' thinking,
whatever is under way), each process in turn, and started again under
the same name; the clients reconnect to any process still running.

With several processes (PostgreSQL), the time until the killed process's
running matches are taken over by another is measured after each kill
(must be under 2 s). Reports, as one JSON line: acknowledged moves lost
(must be 0), moves applied twice (must be 0), matches finished, records
that replay (must be all), the takeover times. Half the matches seat a
bot. Loopback only, bounded; stops by itself.

    python benchmarks/server_faults.py --matches 200 --kills 6 --processes 3 \\
        --database postgresql://USER:PASS@127.0.0.1/DB

Needs the ``server-bench`` extra: ``pip install -e '.[server-bench]'``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from server_clients import ServerProcess, cores, new_matches, percentile, play_in_workers
from sqlalchemy import func, select

from troedler import GameRecord
from troedler.core.errors import TroedlerError
from troedler.server.store import matches, moves, open_database


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _owned(database: str, name: str) -> int:
    engine = open_database(database)
    try:
        async with engine.connect() as connection:
            count = await connection.scalar(
                select(func.count())
                .select_from(matches)
                .where(matches.c.owner == name, matches.c.status.in_(("waiting", "playing")))
            )
    finally:
        await engine.dispose()
    return int(count or 0)


def killer(
    servers: list[ServerProcess],
    kills: int,
    rng: random.Random,
    done: threading.Event,
    figures: dict[str, Any],
) -> None:
    """Kill each process in turn at random moments; time the takeovers; start it again."""
    several = len(servers) > 1
    for number in range(kills):
        if done.wait(rng.uniform(2.0, 6.0)):
            return
        victim = servers[number % len(servers)]
        owned = asyncio.run(_owned(victim.database, victim.name)) if several else 0
        victim.kill()
        killed = time.monotonic()
        figures["kills"] += 1
        if several and owned:
            while asyncio.run(_owned(victim.database, victim.name)) > 0:
                if time.monotonic() - killed > 30:
                    break
                time.sleep(0.02)
            figures["takeover_s"].append(round(time.monotonic() - killed, 3))
        time.sleep(rng.uniform(0.0, 1.0))
        victim.start()


async def logs(database: str, ids: list[str]) -> dict[str, list[tuple[int, str | None]]]:
    engine = open_database(database)
    found: dict[str, list[tuple[int, str | None]]] = {}
    async with engine.connect() as connection:
        for match in ids:
            rows = await connection.execute(
                select(moves.c.number, moves.c.client_id)
                .where(moves.c.match_id == match)
                .order_by(moves.c.number)
            )
            found[match] = [(row[0], row[1]) for row in rows]
    await engine.dispose()
    return found


def run(args: argparse.Namespace, folder: str) -> dict[str, Any]:
    database = args.database or f"sqlite:///{Path(folder) / 'faults.sqlite3'}"
    servers = [
        ServerProcess(database, folder, f"faults{i}", free_port(), cores(args.server_cores))
        for i in range(args.processes)
    ]
    rng = random.Random(args.seed)
    figures: dict[str, Any] = {"kills": 0, "takeover_s": []}
    try:
        urls = [server.url for server in servers]
        made = []
        for number in range(args.matches):
            bots: list[str | None] = [None, "greedy"] if number % 2 else [None, None]
            made += new_matches(urls, 1, bots, args.seed * 7919 + number)
        players = [
            {
                "urls": [server.ws_url for server in servers],
                "match": match,
                "token": token,
                "seed": args.seed * 1_000_003 + number * 2 + seat,
                "think": (0.0, args.think),
            }
            for number, (match, tokens) in enumerate(made)
            for seat, token in enumerate(tokens)
        ]
        done = threading.Event()
        thread = threading.Thread(target=killer, args=(servers, args.kills, rng, done, figures))
        thread.start()
        results, _ = play_in_workers(
            players, args.client_workers, cores(args.client_cores), args.seconds
        )
        done.set()
        thread.join()
        ids = [match for match, _ in made]
        logged = asyncio.run(logs(database, ids))
        finished = replayable = 0
        alive = [server for server in servers if server.alive()]
        with httpx.Client(base_url=rng.choice(alive).url, timeout=60) as http:
            for match in ids:
                if http.get(f"/api/matches/{match}").json()["status"] != "finished":
                    continue
                finished += 1
                try:
                    GameRecord.from_json(http.get(f"/api/matches/{match}/record").text)
                except TroedlerError:
                    continue
                replayable += 1
    finally:
        for server in servers:
            server.stop()
    errors = [error for server in servers for error in server.errors()]
    lost = doubled = 0
    for player in results:
        where = {cid: number for number, cid in logged[player["match"]] if cid is not None}
        for client_id, version in player["acks"].items():
            if where.get(client_id) != version - 1:
                lost += 1
    for log in logged.values():
        ids_logged = [client_id for _, client_id in log if client_id is not None]
        doubled += len(ids_logged) - len(set(ids_logged))
        doubled += len(log) - len({number for number, _ in log})
        doubled += sum(number != index for index, (number, _) in enumerate(log))
    takeovers = figures["takeover_s"]
    return {
        "database": database.split(":")[0],
        "processes": args.processes,
        "matches": args.matches,
        "kills": figures["kills"],
        "acknowledged_moves": sum(len(player["acks"]) for player in results),
        "acknowledged_lost": lost,
        "applied_twice": doubled,
        "finished": finished,
        "records_replay": replayable,
        "takeover_s_max": max(takeovers) if takeovers else None,
        "takeover_s_p50": percentile(takeovers, 0.5) if takeovers else None,
        "takeovers": takeovers,
        "reconnects": sum(player["reconnects"] for player in results),
        "server_errors": len(errors),
        "first_errors": sorted(set(errors))[:5],
        "server_cores": args.server_cores,
        "client_cores": args.client_cores,
        "machine_cores": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--processes", type=int, default=1, help="server processes (3: PostgreSQL)")
    parser.add_argument(
        "--database", default=None, help="default: an SQLite file in a temporary folder"
    )
    parser.add_argument(
        "--think", type=float, default=0.0, help="a seat thinks 0 to this many seconds a move"
    )
    parser.add_argument("--seconds", type=float, default=900.0, help="stop after this long")
    parser.add_argument("--server-cores", default="0", help="cores of the server processes")
    parser.add_argument("--client-cores", default="1", help="cores of the clients' processes")
    parser.add_argument("--client-workers", type=int, default=2, help="clients' processes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.matches <= 1000 or not 0 <= args.kills <= 1000:
        parser.error("--matches: 1 to 1000; --kills: 0 to 1000")
    if args.processes > 1 and not (args.database or "").startswith("postgresql"):
        parser.error("several processes share a PostgreSQL database (--database postgresql://...)")
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(run(args, folder)))


if __name__ == "__main__":
    main()
