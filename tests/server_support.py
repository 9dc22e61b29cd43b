"""A real ``troedler serve`` process on loopback and real websocket clients,
for the server's tests and benchmarks."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 60.0
POSTGRESQL = os.environ.get("TROEDLER_TEST_DATABASE_URL")
"""A PostgreSQL database the tests may fill with matches (CI starts one)."""
DATABASES = ["sqlite", "postgresql"]


def database_url(kind: str, folder: Path) -> str:
    """The URL of a database of ``kind`` for a test; a PostgreSQL one is
    skipped, with the reason, where none is given."""
    if kind == "sqlite":
        return f"sqlite:///{folder / 'matches.sqlite3'}"
    if not POSTGRESQL:
        import pytest

        pytest.skip("no PostgreSQL server: set TROEDLER_TEST_DATABASE_URL (.ci/run starts one)")
    return POSTGRESQL


class Served:
    """``troedler serve --port 0`` in a process of its own, until stopped."""

    def __init__(self, database: str, folder: Path, *options: str) -> None:
        self.database = database
        self.folder = folder
        self.options = options
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.stderr: collections.deque[str] = collections.deque(maxlen=200)
        """The last lines the server wrote to its standard error."""
        self.start()

    def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])]
        )
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "troedler",
                "serve",
                "--port",
                "0",
                "--database",
                self.database,
                # The tests make many matches from one address, faster than a person.
                "--creates-per-minute",
                "100000",
                *self.options,
            ],
            cwd=self.folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        lines: queue.Queue[str] = queue.Queue()
        out, err = self.process.stdout, self.process.stderr
        assert out is not None and err is not None
        threading.Thread(target=lambda: [lines.put(line) for line in out], daemon=True).start()
        # Read too, or a server that logs more than a pipe holds would stop.
        threading.Thread(target=self.stderr.extend, args=(err,), daemon=True).start()
        try:
            line = lines.get(timeout=START_SECONDS)
        except queue.Empty:
            self.kill()
            raise RuntimeError("the server did not start") from None
        if "listening on" not in line:
            self.kill()
            raise RuntimeError(f"the server said {line!r}")
        self.url = line.split("listening on ")[1].strip()
        self.http = httpx.Client(base_url=self.url, timeout=30)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def kill(self) -> None:
        """SIGKILL: no shutdown at all, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)

    def stop(self) -> int:
        """SIGTERM, and the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def create(self, **settings: Any) -> str:
        answer = self.http.post("/api/matches", json=settings)
        assert answer.status_code == 201, answer.text
        return str(answer.json()["match"])

    def join(self, match: str, name: str, seat: int | None = None) -> dict[str, Any]:
        answer = self.http.post(f"/api/matches/{match}/join", json={"name": name, "seat": seat})
        assert answer.status_code == 201, answer.text
        return dict(answer.json())

    def show(self, match: str) -> dict[str, Any]:
        answer = self.http.get(f"/api/matches/{match}")
        assert answer.status_code == 200, answer.text
        return dict(answer.json())


class Client:
    """A websocket to one match, as a seat (with its token) or a spectator."""

    def __init__(
        self,
        served: Served,
        match: str,
        token: str | None = None,
        *,
        since: int | None = None,
        origin: str | None = None,
    ) -> None:
        hello: dict[str, Any] = {"type": "hello", "protocol": 1}
        if token is not None:
            hello["token"] = token
        if since is not None:
            hello["since"] = since
        self.token = token
        self.ws: ClientConnection = connect(
            f"{served.ws_url}api/matches/{match}/play",
            open_timeout=20,
            origin=origin,  # type: ignore[arg-type]
            max_size=2**22,
            legacy=True,
        )
        self.seen: list[dict[str, Any]] = []
        with contextlib.suppress(ConnectionClosed):  # a server that refuses speaks first
            self.send(hello)
        self.welcome = self.next()

    def send(self, message: object) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def next(self, timeout: float = 30) -> dict[str, Any]:
        message = json.loads(self.ws.recv(timeout=timeout))
        self.seen.append(message)
        return dict(message)

    def until(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            message = self.next(max(0.01, end - time.monotonic()))
            if message["type"] == kind:
                return message

    def close(self) -> None:
        self.ws.close()


class Game:
    """Seat clients that play a match out, each choosing at random among its
    legal moves, and keep every acknowledgement they get."""

    def __init__(self, clients: Sequence[Client], seed: int = 0) -> None:
        self.clients = list(clients)
        self.rng = random.Random(seed)
        self.acks: dict[str, int] = {}
        """client move id -> the version its acknowledgement gave."""
        self.moves: dict[int, str] = {}
        """version -> the move that led to it, as broadcast."""
        self.version = 0
        self.result: dict[str, Any] | None = None
        self.status = ""
        self.sent = 0
        self.broken = False
        """Whether a connection closed under the game (the server went away)."""
        self.sent_moves: dict[str, dict[str, Any]] = {}
        """client move id -> the move message, to send again when told ``rate``."""
        self.slowed = 0
        """How many moves the server's rate limit sent back."""

    def take(self, client: Client, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "accepted":
            assert self.acks.get(message["id"], message["version"]) == message["version"]
            self.acks[message["id"]] = message["version"]
        if kind == "moved":
            assert self.moves.get(message["version"], message["move"]) == message["move"]
            self.moves[message["version"]] = message["move"]
        if kind in ("welcome", "moved"):
            self.status = message["status"]
            for missed in message.get("moves", []):
                self.moves[missed["version"]] = missed["move"]
            position = message.get("position")
            if message["version"] >= self.version and position is not None:
                self.version = message["version"]
                self.result = position.get("result")
                legal = position["legal_moves"]
                if legal and self.result is None:
                    self.sent += 1
                    move = {
                        "type": "move",
                        "version": message["version"],
                        "move": self.rng.choice(legal),
                        "id": f"m{self.sent}",
                    }
                    self.sent_moves[move["id"]] = move
                    client.send(move)
        if kind == "error" and message["code"] == "rate" and message.get("id") in self.sent_moves:
            # Not made: sent again once the server takes messages again.
            self.slowed += 1
            time.sleep(message["retry_after"])
            client.send(self.sent_moves[message["id"]])
        if kind == "status":
            self.status = message["status"]

    def run(self, stop: Callable[[Game], bool] = lambda game: False, timeout: float = 300) -> None:
        """Play until the match is over or ``stop`` says so."""
        end = time.monotonic() + timeout
        for client in self.clients:
            self.take(client, client.welcome)
        while self.status in ("playing", "waiting") and not stop(self):
            assert time.monotonic() < end, "the match did not finish in time"
            for client in self.clients:
                try:
                    while not stop(self):  # bots may answer faster than 20 ms, for ever
                        self.take(client, client.next(timeout=0.02))
                except TimeoutError:
                    continue
                except ConnectionClosed:
                    self.broken = True
                    return
        if self.status not in ("playing", "waiting"):
            self.drain()

    def drain(self, quiet: float = 0.5) -> None:
        """Take what is still on its way (the last move's acknowledgement)."""
        for client in self.clients:
            with contextlib.suppress(TimeoutError, ConnectionClosed):
                while True:
                    self.take(client, client.next(timeout=quiet))


__all__ = ["DATABASES", "ROOT", "Client", "ConnectionClosed", "Game", "Served", "database_url"]
