"""The websocket that plays a match: a hello, then moves and pings, until
either side closes (``docs/server.md`` describes the protocol).

A connection's messages are bounded in size (one limit, the websocket's:
a larger one closes it with 1009) and in rate: a token bucket, from which
a move that is made takes nothing, so a client that moves as soon as it
may is never slowed; one that keeps sending past the bucket is closed
with 1008 and a reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from typing import TYPE_CHECKING, Any

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from troedler.server.connection import Close, Connection
from troedler.server.hub import Hub
from troedler.server.match import Live, hash_token
from troedler.server.protocol import PROTOCOL, Frame

if TYPE_CHECKING:
    from troedler.server.app import ServerSettings

__all__ = ["MAX_ID", "MAX_VERSION", "Bucket", "play"]

MAX_ID = 64
"""The longest client move id."""
MAX_VERSION = 1_000_000
"""Versions above this are no version a match reaches."""


class Bucket:
    """A token bucket: ``rate`` messages a second, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.level = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        """Whether a message may be taken now (and one is counted if so)."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level < 1:
            return False
        self.level -= 1
        return True

    def give_back(self) -> None:
        """The message taken was a move that was made: it costs nothing."""
        self.level = min(self.burst, self.level + 1)

    def wait(self) -> float:
        """Seconds until a message is taken again."""
        return max(0.0, (1 - self.level) / self.rate)


def _error(viewer: int | None, code: str, message: str, **more: Any) -> str:
    return Frame("error", code=code, message=message, **more).to(None)


async def _writer(websocket: WebSocket, connection: Connection) -> None:
    with contextlib.suppress(Exception):  # the socket went away: the reader ends too
        while True:
            text = await connection.outbox.get()
            if text is None:
                break
            await websocket.send_text(text)
    connection.closed = True
    with contextlib.suppress(Exception):
        await websocket.close(code=connection.code, reason=connection.reason[:120])
    connection.finished.set()


def _parse(text: str | None) -> dict[str, Any] | str:
    """A client message as a JSON object, or what is wrong with it."""
    if text is None:
        return "send text messages"
    try:
        data = orjson.loads(text)
    except (ValueError, RecursionError):
        return "the message is not JSON"
    if not isinstance(data, dict):
        return "a message is a JSON object"
    return data


async def _refuse(websocket: WebSocket, code: str, message: str) -> None:
    """Answer a connection that cannot go on with an error, and close it (1008)."""
    with contextlib.suppress(Exception):
        await websocket.send_text(_error(None, code, message))
        await websocket.close(code=Close.POLICY, reason=message[:120])


async def play(websocket: WebSocket, hub: Hub, settings: ServerSettings) -> None:
    """One websocket: hello, then moves, until either side closes."""
    live = await hub.load(websocket.path_params["match"])
    await websocket.accept()
    if live is None:
        await _refuse(websocket, "no_match", "no such match")
        return
    try:
        hello_text = await asyncio.wait_for(websocket.receive(), settings.hello_seconds)
    except (TimeoutError, WebSocketDisconnect):
        with contextlib.suppress(Exception):
            await websocket.close(code=Close.POLICY, reason="no hello in time")
        return
    if hello_text.get("type") == "websocket.disconnect":
        return
    hello = _parse(hello_text.get("text"))
    problem = _hello_problem(hello, live)
    if problem is not None:
        await _refuse(websocket, "hello", problem)
        return
    assert isinstance(hello, dict)
    token = hello.get("token")
    seat = live.seat_of(token) if token is not None else None
    connection = Connection(seat, None if seat is None else hash_token(str(token)))
    writer = asyncio.create_task(_writer(websocket, connection))
    await hub.connect(live, connection, hello.get("since"))
    bucket = Bucket(settings.rate, settings.burst)
    try:
        while not connection.closed:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                break
            text = received.get("text")
            if text is not None and len(text) > settings.max_message:
                # Only where the ASGI server does not bound messages itself.
                connection.close(
                    Close.TOO_BIG, f"a message is at most {settings.max_message} bytes"
                )
                break
            data = _parse(text)
            if not bucket.take():
                if bucket.level < -settings.burst:
                    connection.close(Close.POLICY, "too many messages")
                    break
                bucket.level -= 1  # who keeps on sending is closed soon
                # The message is not acted on; a move is named, so that its
                # client knows it was not made and can send it again.
                connection.send(
                    _error(
                        seat,
                        "rate",
                        "too many messages: slow down",
                        retry_after=math.ceil(bucket.wait() * 1000) / 1000,
                        **_move_id(data),
                    )
                )
                continue
            if isinstance(data, str):
                connection.send(_error(seat, "malformed", data))
                continue
            if await _handle(data, connection, live, hub):
                bucket.give_back()
    except WebSocketDisconnect:
        pass
    finally:
        hub.disconnect(live, connection)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)


def _move_id(data: dict[str, Any] | str) -> dict[str, str]:
    """``{"id": ...}`` of a move message with a well-formed id, else nothing."""
    if isinstance(data, dict) and data.get("type") == "move":
        client_id = data.get("id")
        if isinstance(client_id, str) and 0 < len(client_id) <= MAX_ID:
            return {"id": client_id}
    return {}


def _hello_problem(hello: dict[str, Any] | str, live: Live) -> str | None:
    """What is wrong with a hello, or None."""
    if isinstance(hello, str):
        return hello
    if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL:
        return f'begin with {{"type": "hello", "protocol": {PROTOCOL}, ...}}'
    since = hello.get("since")
    if since is not None and (type(since) is not int or not 0 <= since <= MAX_VERSION):
        return "since: a version the client has, 0 or more"
    if "token" in hello:
        if live.seat_of(hello["token"]) is None:
            return "that token is no seat's in this match"
    elif not live.settings.spectators:
        return "this match cannot be watched: join it with a seat's token"
    return None


async def _handle(data: dict[str, Any], connection: Connection, live: Live, hub: Hub) -> bool:
    """One message after the hello: whether it was a move that was made."""
    if connection.closed:  # its seat was given up: nothing more is done for it
        return False
    seat = connection.seat
    kind = data.get("type")
    if kind == "ping":
        connection.send(Frame("pong", version=live.version).to(None))
        return False
    if kind != "move":
        connection.send(_error(seat, "malformed", 'the messages are "move" and "ping"'))
        return False
    client_id = data.get("id")
    if not isinstance(client_id, str) or not 0 < len(client_id) <= MAX_ID:
        connection.send(_error(seat, "malformed", f"id: text of 1 to {MAX_ID} characters"))
        return False
    if seat is None:
        connection.send(_error(seat, "forbidden", "a spectator makes no moves", id=client_id))
        return False
    version, move = data.get("version"), data.get("move")
    if type(version) is not int or not 0 <= version <= MAX_VERSION:
        connection.send(_error(seat, "malformed", "version: the position's version", id=client_id))
        return False
    if not isinstance(move, str) or not 0 < len(move) <= 200:
        connection.send(_error(seat, "malformed", "move: a move in notation", id=client_id))
        return False
    return await hub.play(live, connection, version, move, client_id)
