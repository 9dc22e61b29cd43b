"""What the server benchmarks share: server processes started and killed
(each pinned to the cores it is given), the lobby through HTTP, and
scripted players, asyncio websocket clients run in worker processes of
their own (pinned to other cores), that play their seat at a person's pace
or as fast as they are answered, reconnect to any process after one goes
away, send an unacknowledged move again with its id, and keep every
acknowledgement and the time from each move sent to its broadcast.

Needs the ``server-bench`` extra: ``pip install -e '.[server-bench]'``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import psutil
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

try:
    import uvloop
except ImportError:  # not on Windows
    uvloop = None  # type: ignore[assignment]

__all__ = [
    "Player",
    "ServerProcess",
    "cores",
    "new_matches",
    "percentile",
    "play_in_workers",
]

START_SECONDS = 60.0


def cores(text: str) -> list[int]:
    """``"0"`` or ``"0,1"`` or ``"0-3"``: the cores named."""
    found: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        found += range(int(low), int(high or low) + 1)
    return found


class ServerProcess:
    """``troedler serve`` on a port of its own, pinned to ``cpus``, until stopped."""

    def __init__(
        self, database: str, folder: str, name: str, port: int, cpus: Sequence[int], *extra: str
    ) -> None:
        self.database = database
        self.folder = folder
        self.name = name
        self.port = port
        self.cpus = list(cpus)
        self.extra = extra
        self.process: subprocess.Popen[str] | None = None
        self.url = f"http://127.0.0.1:{port}/"
        self.log = os.path.join(folder, f"{name}.log")
        """Where the process writes its standard error, kept across restarts."""
        self.start()

    def errors(self) -> list[str]:
        """The exceptions the process logged (the last line of each traceback)."""
        with open(self.log) as log:
            lines = log.read().splitlines()
        return [line for line in lines if re.match(r"[A-Za-z_.]+(Error|Exception|Exit)\b", line)]

    def start(self) -> None:
        command = [
            sys.executable, "-m", "troedler", "serve",
            "--port", str(self.port), "--database", self.database, "--name", self.name,
            # Every match of a benchmark is created from one address.
            "--creates-per-minute", "1000000", "--max-waiting", "100000",
            *self.extra,
        ]  # fmt: skip
        with open(self.log, "a") as log:
            log.write(f"== started {time.time():.3f}\n")
        self.process = subprocess.Popen(  # noqa: S603 - this Python, troedler, our options
            command,
            cwd=self.folder,
            stdout=subprocess.PIPE,
            stderr=open(self.log, "a"),  # noqa: SIM115 - the child holds it
            text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, self.cpus),  # noqa: PLW1509
        )
        lines: queue.Queue[str] = queue.Queue()
        out = self.process.stdout
        assert out is not None
        threading.Thread(target=lambda: [lines.put(line) for line in out], daemon=True).start()
        try:
            line = lines.get(timeout=START_SECONDS)
        except queue.Empty:
            self.kill()
            raise RuntimeError(f"server {self.name} did not start") from None
        if "listening on" not in line:
            self.kill()
            raise RuntimeError(f"server {self.name} said {line!r}")

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown at all, as in a crash."""
        if self.alive():
            assert self.process is not None
            self.process.kill()
            self.process.wait(30)

    def stop(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def figures(self) -> tuple[float, float]:
        """(CPU seconds so far, resident memory in MB)."""
        assert self.process is not None
        process = psutil.Process(self.process.pid)
        times = process.cpu_times()
        return times.user + times.system, process.memory_info().rss / 2**20


def new_matches(
    urls: Sequence[str], count: int, bots: Sequence[str | None], seed: int
) -> list[tuple[str, list[str]]]:
    """``count`` matches with their people joined, each request to a process
    picked at random: each match's id and its people's tokens."""
    rng = random.Random(seed)
    made = []
    clients = [httpx.Client(base_url=url, timeout=60) for url in urls]
    for _ in range(count):
        answer = rng.choice(clients).post(
            "/api/matches", json={"players": len(bots), "bots": list(bots)}
        )
        answer.raise_for_status()
        match = answer.json()["match"]
        tokens = []
        for seat, bot in enumerate(bots):
            if bot is None:
                joined = rng.choice(clients).post(
                    f"/api/matches/{match}/join", json={"name": f"p{seat}", "seat": seat}
                )
                joined.raise_for_status()
                tokens.append(joined.json()["token"])
        made.append((match, tokens))
    for client in clients:
        client.close()
    return made


@dataclass
class Player:
    """One person's client, playing its seat until the match is over or time is up."""

    urls: list[str]
    match: str
    token: str
    seed: int
    think: tuple[float, float]
    version: int = 0
    acks: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    sent: dict[int, float] = field(default_factory=dict)
    unacknowledged: dict[str, Any] | None = None
    count: int = 0
    over: bool = False
    reconnects: int = 0
    slowed: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.waiting: asyncio.Task[None] | None = None
        self.welcomed: dict[str, Any] | None = None

    async def play(self, deadline: float) -> None:
        while not self.over and time.monotonic() < deadline:
            url = self.rng.choice(self.urls)
            try:
                async with connect(
                    f"{url}api/matches/{self.match}/play",
                    open_timeout=30,
                    max_size=2**22,
                    compression=None,
                ) as ws:
                    hello = {"type": "hello", "protocol": 1, "token": self.token}
                    hello["since"] = self.version
                    await ws.send(json.dumps(hello))
                    while not self.over:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            return
                        raw = await asyncio.wait_for(ws.recv(), left)
                        await self.take(json.loads(raw), ws)
            except (ConnectionClosed, OSError, TimeoutError, InvalidHandshake):
                if self.waiting is not None:
                    self.waiting.cancel()
                if self.over or time.monotonic() >= deadline:
                    return
                self.reconnects += 1
                await asyncio.sleep(self.rng.uniform(0.1, 0.5))

    async def take(self, message: dict[str, Any], ws: Any) -> None:
        kind = message["type"]
        if kind in ("accepted", "error"):
            if kind == "accepted":
                self.acks[message["id"]] = message["version"]
            pending = self.unacknowledged
            if pending is None or message.get("id") != pending["id"]:
                return
            if kind == "error" and message["code"] == "rate":
                self.slowed += 1
                await asyncio.sleep(message["retry_after"])
                await ws.send(json.dumps(pending))
                return
            self.unacknowledged = None
            welcome, self.welcomed = self.welcomed, None
            if welcome is not None:  # answered after a reconnection: play on from its welcome
                await self.take(welcome, ws)
            return
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
        if kind == "welcome" and self.unacknowledged is not None:
            # Sent before the connection went away and not answered: again,
            # with its id (made once whatever happened); then play on.
            self.welcomed = message
            await ws.send(json.dumps(self.unacknowledged))
            return
        self.version = max(self.version, version)
        position = message.get("position")
        if version == self.version and position is not None and position["legal_moves"]:
            if self.waiting is not None:
                self.waiting.cancel()
            move = self.rng.choice(position["legal_moves"])
            self.waiting = asyncio.create_task(self.move_after_thinking(ws, version, move))

    async def move_after_thinking(self, ws: Any, version: int, move: str) -> None:
        low, high = self.think
        if high > 0:
            await asyncio.sleep(self.rng.uniform(low, high))
        if version != self.version or self.over:
            return
        self.count += 1
        message = {
            "type": "move",
            "version": version,
            "move": move,
            "id": f"{self.token[:6]}-{self.count}",
        }
        self.unacknowledged = message
        self.sent[version + 1] = time.perf_counter()
        with contextlib.suppress(ConnectionClosed):  # sent again after reconnecting
            await ws.send(json.dumps(message))


def _worker(
    cpus: list[int],
    players: list[dict[str, Any]],
    seconds: float,
    results: multiprocessing.Queue,  # type: ignore[type-arg]
) -> None:
    os.sched_setaffinity(0, cpus)
    made = [Player(**spec) for spec in players]
    deadline = time.monotonic() + seconds

    async def run() -> None:
        await asyncio.gather(*(player.play(deadline) for player in made))

    if uvloop is not None:  # cheaper clients, where the server extra installs it
        uvloop.run(run())
    else:
        asyncio.run(run())
    times = psutil.Process().cpu_times()
    results.put(
        {
            "players": [
                {
                    "match": p.match,
                    "token": p.token,
                    "acks": p.acks,
                    "latencies": p.latencies,
                    "over": p.over,
                    "reconnects": p.reconnects,
                    "slowed": p.slowed,
                }
                for p in made
            ],
            "cpu_s": times.user + times.system,
        }
    )


def play_in_workers(
    players: list[dict[str, Any]], workers: int, cpus: list[int], seconds: float
) -> tuple[list[dict[str, Any]], float]:
    """Play ``players`` (the fields of :class:`Player`) in ``workers``
    processes pinned to ``cpus``, for at most ``seconds``: each player's
    figures, and the CPU seconds the clients used."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    shares = [players[i::workers] for i in range(workers)]
    started = [
        context.Process(target=_worker, args=(cpus, share, seconds, results), daemon=True)
        for share in shares
        if share
    ]
    for process in started:
        process.start()
    found: list[dict[str, Any]] = []
    cpu = 0.0
    for _ in started:
        answer = results.get(timeout=seconds + 120)
        found += answer["players"]
        cpu += answer["cpu_s"]
    for process in started:
        process.join(30)
    return found, cpu


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")
