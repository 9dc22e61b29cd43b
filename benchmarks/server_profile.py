"""Where a move's CPU goes in the game server, from the frame that brings it
to the broadcast of its position: one server process pinned to a core,
clients moving as soon as they may on another, and py-spy sampling the
server's threads while they hold the interpreter (``--gil``).

Reports one JSON line: the server's CPU time per move (user and system,
from the operating system) and the Python time per move in each part of
the path, in milliseconds.

    python benchmarks/server_profile.py --matches 20 --seconds 15

Needs the ``server-bench`` extra (py-spy among it) and the right to trace
a process of one's own (ptrace).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import psutil
from server_clients import ServerProcess, cores, new_matches, play_in_workers

PARTS = [
    # (part, a frame of the sample's stack that places it there), first match wins.
    ("database write (journal thread)", ["SQLiteJournal._run", "PostgresJournal"]),
    ("views: observe (rules kernel)", ["observe (troedler/views.py"]),
    ("views: position JSON", ["position_text (troedler/server/protocol.py"]),
    ("move check: parse and apply (rules kernel)", ["Hub._problem", "replay_move"]),
    ("message JSON (public fields)", ["Frame.to"]),
    ("websocket send (writer, uvicorn, websockets)", ["_writer (troedler/server/socket.py"]),
    ("the rest of the move (lock, entry, clocks, queues)", ["_handle (troedler/server/socket.py"]),
    ("websocket receive, JSON parse, rate", ["play (troedler/server/socket.py"]),
    ("websocket frames in (uvicorn, websockets)", ["data_received", "handle_events"]),
    ("event loop", ["_run_once", "select (selectors.py"]),
]


def parts_of(raw: Path) -> collections.Counter[str]:
    """Samples per part, from py-spy's raw (collapsed) output."""
    found: collections.Counter[str] = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        for part, marks in PARTS:
            if any(mark in stack for mark in marks):
                found[part] += int(count)
                break
        else:
            found["other"] += int(count)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rate", type=int, default=250, help="samples a second")
    parser.add_argument("--server-cores", default="0")
    parser.add_argument("--client-cores", default="1")
    parser.add_argument("--database", default=None, help="default: an SQLite file")
    args = parser.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    with tempfile.TemporaryDirectory() as folder:
        database = args.database or f"sqlite:///{Path(folder) / 'profile.sqlite3'}"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = ServerProcess(database, folder, "profile", port, cores(args.server_cores))
        try:
            made = new_matches([server.url], args.matches, [None, None], 1)
            players: list[dict[str, Any]] = [
                {
                    "urls": [server.ws_url],
                    "match": match,
                    "token": token,
                    "seed": number * 2 + seat,
                    "think": (0.0, 0.0),
                }
                for number, (match, tokens) in enumerate(made)
                for seat, token in enumerate(tokens)
            ]
            assert server.process is not None
            process = psutil.Process(server.process.pid)
            before = process.cpu_times()
            raw = Path(folder) / "samples.txt"
            sampler = subprocess.Popen(  # noqa: S603 - py-spy on our own server
                [spy, "record", "--pid", str(server.process.pid), "--duration",
                 str(int(args.seconds)), "--rate", str(args.rate), "--format", "raw",
                 "--gil", "--threads", "--output", str(raw)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            results, _ = play_in_workers(players, 2, cores(args.client_cores), args.seconds)
            after = process.cpu_times()
            sampler.wait(120)
        finally:
            server.stop()
        moves = sum(len(player["acks"]) for player in results)
        samples = parts_of(raw)
    # Python time a move in each part: samples over the sampler's duration.
    per_sample_ms = 1000 / args.rate / max(1, moves)
    used = (after.user + after.system - before.user - before.system) * 1000 / max(1, moves)
    figures = {
        "moves": moves,
        "cpu_ms_per_move": round(used, 3),
        "user_ms_per_move": round((after.user - before.user) * 1000 / max(1, moves), 3),
        "system_ms_per_move": round((after.system - before.system) * 1000 / max(1, moves), 3),
        "python_ms_per_move": {
            part: round(count * per_sample_ms, 3) for part, count in samples.most_common()
        },
        "server_cores": args.server_cores,
        "client_cores": args.client_cores,
        "machine_cores": os.cpu_count(),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
