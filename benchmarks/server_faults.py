"""Faults: matches played while the game server is killed with SIGKILL at
random moments (during commits, broadcasts and bots' thinking, whatever is
under way) and started again on the same port while the clients reconnect.

Reports acknowledged moves lost (must be 0), moves applied twice (must be
0), matches finished, and records that replay (must be all), as one JSON
line. Half the matches seat a bot. Loopback only, bounded; stops by itself.

    python benchmarks/server_faults.py --matches 20 --kills 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import tempfile
import time
from pathlib import Path

from server_clients import Seat, Served, new_match
from sqlalchemy import select

from troedler import GameRecord
from troedler.core.errors import TroedlerError
from troedler.server.store import moves, open_database


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def killer(served: Served, kills: int, rng: random.Random, seats: list[Seat]) -> int:
    done = 0
    while done < kills and not all(seat.over for seat in seats):
        await asyncio.sleep(rng.uniform(0.5, 4.0))
        served.kill()
        done += 1
        await asyncio.sleep(rng.uniform(0.0, 1.0))
        await asyncio.to_thread(served.start)
    return done


async def logs(database: str, matches: list[str]) -> dict[str, list[tuple[int, str | None]]]:
    engine = open_database(database)
    found: dict[str, list[tuple[int, str | None]]] = {}
    async with engine.connect() as connection:
        for match in matches:
            rows = await connection.execute(
                select(moves.c.number, moves.c.client_id)
                .where(moves.c.match_id == match)
                .order_by(moves.c.number)
            )
            found[match] = [(row[0], row[1]) for row in rows]
    await engine.dispose()
    return found


async def run(
    served: Served, count: int, kills: int, seconds: float, seed: int
) -> dict[str, object]:
    rng = random.Random(seed)
    seats: list[Seat] = []
    ids = []
    for number in range(count):
        bots: list[str | None] = [None, "greedy"] if number % 2 else [None, None]
        match, tokens = new_match(served, bots)
        ids.append(match)
        seats += [Seat(served, match, token, seed=number * 2 + i) for i, token in enumerate(tokens)]
    deadline = time.monotonic() + seconds
    plays = asyncio.gather(*(seat.play(deadline) for seat in seats))
    done = await killer(served, kills, rng, seats)
    await plays
    logged = await logs(served.database, ids)
    lost = doubled = 0
    for seat in seats:
        log = logged[seat.match]
        where = {client_id: number for number, client_id in log if client_id is not None}
        for client_id, version in seat.acks.items():
            if where.get(client_id) != version - 1:
                lost += 1
    for log in logged.values():
        ids_logged = [client_id for _, client_id in log if client_id is not None]
        doubled += len(ids_logged) - len(set(ids_logged))
        doubled += len(log) - len({number for number, _ in log})
    finished = replayable = 0
    for match in ids:
        summary = served.http.get(f"/api/matches/{match}").json()
        if summary["status"] != "finished":
            continue
        finished += 1
        try:
            GameRecord.from_json(served.http.get(f"/api/matches/{match}/record").text)
        except TroedlerError:
            continue
        replayable += 1
    return {
        "matches": count,
        "kills": done,
        "acknowledged_moves": sum(len(seat.acks) for seat in seats),
        "acknowledged_lost": lost,
        "applied_twice": doubled,
        "finished": finished,
        "records_replay": replayable,
        "reconnects": sum(seat.reconnects for seat in seats),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument(
        "--database", default=None, help="default: an SQLite file in a temporary folder"
    )
    parser.add_argument("--seconds", type=float, default=900.0, help="stop after this long")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.matches <= 1000 or not 0 <= args.kills <= 1000:
        parser.error("--matches: 1 to 1000; --kills: 0 to 1000")
    with tempfile.TemporaryDirectory() as folder:
        database = args.database or f"sqlite:///{Path(folder) / 'faults.sqlite3'}"
        served = Served(database, Path(folder), "--port", str(free_port()))
        try:
            figures = asyncio.run(
                run(served, args.matches, args.kills, min(args.seconds, 3600.0), args.seed)
            )
        finally:
            served.stop()
    figures["database"] = database.split(":")[0]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
