"""Scripted players for the server benchmarks: asyncio websocket clients that
play their seat at random, reconnect after the server goes away, and keep
every acknowledgement and the time from each move sent to its broadcast."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import psutil
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server_support import Served  # noqa: E402

__all__ = ["Seat", "Served", "figures_of", "new_match", "percentile"]


def new_match(served: Served, bots: list[str | None]) -> tuple[str, list[str]]:
    """A two-seat-or-more match with its people joined: its id and their tokens."""
    answer = served.http.post("/api/matches", json={"players": len(bots), "bots": bots})
    match = answer.json()["match"]
    tokens = []
    for seat, bot in enumerate(bots):
        if bot is None:
            joined = served.http.post(
                f"/api/matches/{match}/join", json={"name": f"p{seat}", "seat": seat}
            )
            tokens.append(joined.json()["token"])
    return match, tokens


class Seat:
    """One person's client, playing until the match is over."""

    def __init__(self, served: Served, match: str, token: str, seed: int) -> None:
        self.served = served
        self.match = match
        self.token = token
        self.rng = random.Random(seed)
        self.version = 0
        self.acks: dict[str, int] = {}
        self.latencies: list[float] = []
        self.sent: dict[int, float] = {}
        self.count = 0
        self.over = False
        self.reconnects = 0

    def url(self) -> str:
        return f"{self.served.ws_url}api/matches/{self.match}/play"

    async def play(self, deadline: float) -> None:
        while not self.over and time.monotonic() < deadline:
            try:
                async with connect(self.url(), open_timeout=10, max_size=2**22) as ws:
                    await ws.send(
                        json.dumps(
                            {
                                "type": "hello",
                                "protocol": 1,
                                "token": self.token,
                                "since": self.version,
                            }
                        )
                    )
                    while not self.over:
                        raw = await asyncio.wait_for(
                            ws.recv(), max(0.1, deadline - time.monotonic())
                        )
                        await self.take(json.loads(raw), ws)
            except (ConnectionClosed, OSError, TimeoutError):
                if self.over or time.monotonic() >= deadline:
                    return
                self.reconnects += 1
                await asyncio.sleep(0.3)

    async def take(self, message: dict[str, Any], ws: Any) -> None:
        kind = message["type"]
        if kind == "accepted":
            self.acks[message["id"]] = message["version"]
        if kind in ("welcome", "moved", "status") and message.get("status") in (
            "finished",
            "forfeited",
        ):
            self.over = True
            return
        if kind not in ("welcome", "moved"):
            return
        version = message["version"]
        if kind == "moved" and version in self.sent:
            self.latencies.append(time.perf_counter() - self.sent.pop(version))
        self.version = max(self.version, version)
        position = message.get("position")
        if version == self.version and position is not None and position["legal_moves"]:
            self.count += 1
            self.sent[version + 1] = time.perf_counter()
            await ws.send(
                json.dumps(
                    {
                        "type": "move",
                        "version": version,
                        "move": self.rng.choice(position["legal_moves"]),
                        "id": f"{self.token[:6]}-{self.count}",
                    }
                )
            )


def figures_of(served: Served) -> dict[str, Any]:
    """The server process's memory and CPU time so far."""
    assert served.process is not None
    process = psutil.Process(served.process.pid)
    times = process.cpu_times()
    return {"rss_mb": process.memory_info().rss / 2**20, "cpu_s": times.user + times.system}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")
