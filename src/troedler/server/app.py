"""The server's web application: the lobby's HTTP JSON API and the
websocket that plays a match (``docs/server.md`` describes both).

A request is refused before it reaches a match when its Host is not one the
operator named, when a websocket's Origin is another site's, when a body or
a message is larger than its bound, or when a connection sends faster than
its rate. A seat's token travels only in an ``Authorization: Bearer`` header
or in a websocket's first message, never in an address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import attrs
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from troedler.server.hub import Connection, Elsewhere, Hub, Live
from troedler.server.page import csp, page_html
from troedler.server.protocol import PROTOCOL, message_for
from troedler.server.settings import BadRequest, MatchSettings
from troedler.server.store import DEFAULT_DATABASE, matches, migrate, open_database

__all__ = ["ServerSettings", "make_app"]

_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}
MAX_ID = 64
"""The longest client move id."""
MAX_VERSION = 1_000_000
"""Versions above this are no version a match reaches."""
MAX_CREATORS = 10_000
"""Client addresses whose match creations are counted at once (the oldest are forgotten)."""


@attrs.frozen
class ServerSettings:
    """What the operator decides: where matches are stored, who may reach the
    server, and the bounds on what a client may send."""

    database: str = DEFAULT_DATABASE
    """An SQLAlchemy URL: ``sqlite:///FILE`` or ``postgresql://...``."""
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost")
    """Host header values answered (behind a proxy: the site's name)."""
    allow_exec: bool = False
    """Whether matches may seat ``exec:`` program bots, run on this machine."""
    bot_seconds: float = 10.0
    """A bot's time for a move; after it a random legal move is made for it."""
    max_body: int = 4096
    """The largest HTTP request body, in bytes."""
    max_message: int = 4096
    """The largest websocket message, in bytes."""
    rate: float = 10.0
    """Messages a connection may send each second, on average ..."""
    burst: int = 30
    """... and at once."""
    hello_seconds: float = 10.0
    """How long a new connection has to say hello."""
    name: str = "main"
    """This process's name among the processes sharing the database."""
    address: str = ""
    """Where clients reach this process (``http://host:port``), for the others
    to send them to the matches it serves."""
    lease_seconds: float = 15.0
    """How long a process holds a match without renewing its lease."""
    max_waiting: int = 1000
    """Matches waiting for players at once, in the whole database; past it
    a new match is refused (503, ``busy``) until some start."""
    creates_per_minute: int = 20
    """Matches one client address may create a minute, on average and at
    once; past it a new match is refused (429, ``rate``). Behind a proxy
    every client has the proxy's address: raise it there."""


class _Bucket:
    """A token bucket: ``rate`` messages a second, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.level = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level < 1:
            return False
        self.level -= 1
        return True

    def wait(self) -> float:
        """Seconds until a message is taken again."""
        return max(0.0, (1 - self.level) / self.rate)


def make_app(
    settings: ServerSettings, *, on_ready: Callable[[Hub], None] | None = None
) -> Starlette:
    """The server's application. Its lifespan opens the database, migrates it,
    loads the matches being played (their clocks and bots go on) and, at the
    end, stops them, every accepted move being stored already."""
    state: dict[str, Hub] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        engine = open_database(settings.database)
        await migrate(engine)
        hub = Hub(
            engine,
            allow_exec=settings.allow_exec,
            bot_seconds=settings.bot_seconds,
            name=settings.name,
            address=settings.address,
            lease_seconds=settings.lease_seconds,
            max_waiting=settings.max_waiting,
        )
        state["hub"] = hub
        await hub.resume_all()
        hub.start()
        if on_ready is not None:
            on_ready(hub)
        try:
            yield
        finally:
            await hub.close()

    def hub() -> Hub:
        return state["hub"]

    def refused(message: str, status: int, code: str) -> JSONResponse:
        return JSONResponse({"error": message, "code": code}, status_code=status, headers=_HEADERS)

    def answer(data: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(data, status_code=status, headers=_HEADERS)

    def handler(
        run: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            if not _same_origin(request.headers):
                return refused("requests from another site's pages are refused", 403, "origin")
            try:
                return await run(request)
            except BadRequest as error:
                return refused(str(error), error.status, error.code)
            except Elsewhere as error:
                if not error.address:
                    return refused(str(error), 503, "elsewhere")
                target = error.address.rstrip("/") + request.url.path
                # 307: the client repeats the same request, body and all, there.
                return JSONResponse(
                    {"error": str(error), "code": "elsewhere", "address": error.address},
                    status_code=307,
                    headers={**_HEADERS, "Location": target},
                )

        return handle

    async def body(request: Request) -> Any:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise BadRequest("send the request as application/json", status=415, code="type")
        data = await _bounded_body(request, settings.max_body)
        if data is None:
            raise BadRequest(
                f"a request is at most {settings.max_body} bytes", status=413, code="too_big"
            )
        try:
            return json.loads(data) if data else {}
        except (ValueError, RecursionError):
            raise BadRequest("the request is not JSON", code="not_json") from None

    async def match_of(request: Request) -> Live:
        live = await hub().load(request.path_params["match"])
        if live is None:
            raise BadRequest("no such match", status=404, code="no_match")
        return live

    def seat_of(request: Request, live: Live) -> int:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        seat = live.seat_of(token) if scheme.lower() == "bearer" else None
        if seat is None:
            raise BadRequest(
                "this needs the seat's token (Authorization: Bearer TOKEN)",
                status=403,
                code="forbidden",
            )
        return seat

    creators: OrderedDict[str, _Bucket] = OrderedDict()
    """Each client address's bucket of match creations (the most recent ones)."""

    async def create(request: Request) -> Response:
        address = request.client.host if request.client is not None else ""
        bucket = creators.pop(address, None) or _Bucket(
            settings.creates_per_minute / 60, settings.creates_per_minute
        )
        creators[address] = bucket
        while len(creators) > MAX_CREATORS:
            creators.popitem(last=False)
        if not bucket.take():
            raise BadRequest(
                f"at most {settings.creates_per_minute} matches a minute from one address",
                status=429,
                code="rate",
            )
        match_settings = MatchSettings.from_data(
            await body(request), allow_exec=settings.allow_exec
        )
        live = await hub().create(match_settings)
        return answer(live.summary(), 201)

    async def listing(request: Request) -> Response:
        status = request.query_params.get("status")
        query = select(matches.c.id).where(matches.c.public.is_(True))
        if status is not None:
            query = query.where(matches.c.status == status[:16])
        query = query.order_by(matches.c.created.desc()).limit(100)
        async with hub().engine.connect() as connection:
            found = list((await connection.execute(query)).scalars())
        listed = []
        for match_id in found:
            live = await hub().peek(match_id)
            if live is not None:
                listed.append(live.summary())
        return answer({"matches": listed})

    async def show(request: Request) -> Response:
        live = await hub().peek(request.path_params["match"][:32])
        if live is None:
            raise BadRequest("no such match", status=404, code="no_match")
        return answer(live.summary())

    async def join(request: Request) -> Response:
        live = await match_of(request)
        data = await body(request)
        if not isinstance(data, dict):
            raise BadRequest("expected a JSON object")
        seat, token = await hub().join(live, data.get("name"), data.get("seat"))
        return answer({"match": live.id, "seat": seat, "token": token}, 201)

    async def leave(request: Request) -> Response:
        live = await match_of(request)
        await hub().leave(live, seat_of(request, live))
        return answer(live.summary())

    async def rematch(request: Request) -> Response:
        live = await match_of(request)
        new, seat, token = await hub().rematch(live, seat_of(request, live))
        return answer({"match": new.id, "seat": seat, "token": token}, 201)

    async def record(request: Request) -> Response:
        live = await match_of(request)
        if live.status not in ("finished", "forfeited"):
            # The record holds the seed, which tells every hidden card.
            raise BadRequest(
                "a match's record is given once it is over", status=409, code="not_over"
            )
        headers = dict(_HEADERS)
        headers["Content-Disposition"] = f'attachment; filename="troedler-{live.id}.json"'
        return Response(live.record().to_json(), media_type="application/json", headers=headers)

    async def map_picture(request: Request) -> Response:
        live = await match_of(request)
        if not live.settings.spectators:
            seat_of(request, live)  # a match nobody may watch: its seats only
        if live.status == "waiting":
            raise BadRequest("the match has not started", status=409, code="not_started")
        return Response(live.map_svg(), media_type="image/svg+xml", headers=_HEADERS)

    async def play(websocket: WebSocket) -> None:
        await _play(websocket, hub(), settings)

    async def not_found(request: Request, exc: Exception) -> Response:
        return refused("no such address", 404, "not_found")

    async def page(request: Request) -> Response:
        nonce = secrets.token_urlsafe(16)
        headers = {
            **_HEADERS,
            "Content-Security-Policy": csp(nonce),
            "Cross-Origin-Opener-Policy": "same-origin",
        }
        return HTMLResponse(page_html(nonce), headers=headers)

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/api/matches", handler(create), methods=["POST"]),
        Route("/api/matches", handler(listing), methods=["GET"]),
        Route("/api/matches/{match}", handler(show), methods=["GET"]),
        Route("/api/matches/{match}/join", handler(join), methods=["POST"]),
        Route("/api/matches/{match}/leave", handler(leave), methods=["POST"]),
        Route("/api/matches/{match}/rematch", handler(rematch), methods=["POST"]),
        Route("/api/matches/{match}/record", handler(record), methods=["GET"]),
        Route("/api/matches/{match}/map.svg", handler(map_picture), methods=["GET"]),
        WebSocketRoute("/api/matches/{match}/play", play),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))],
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False
    app.add_exception_handler(404, not_found)
    app.add_exception_handler(405, not_found)
    return app


def _same_origin(headers: Any) -> bool:
    """Whether a request (or websocket) comes from no page, or from this site's."""
    origin = headers.get("origin")
    if origin is None:
        return True  # not a browser page: a program, which needs a token anyway
    return bool(urlsplit(origin).netloc) and urlsplit(origin).netloc == headers.get("host")


async def _bounded_body(request: Request, limit: int) -> bytes | None:
    """The body, or None once it passes ``limit`` bytes (read piece by piece,
    whatever Content-Length says)."""
    declared = request.headers.get("content-length", "")
    if declared.isdecimal() and int(declared[:12]) > limit:
        return None
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            return None
    return bytes(data)


def _error(viewer: int | None, code: str, message: str, **more: Any) -> str:
    return message_for(viewer, "error", code=code, message=message, **more)


async def _writer(websocket: WebSocket, connection: Connection) -> None:
    with contextlib.suppress(Exception):  # the socket went away: the reader ends too
        while True:
            text = await connection.outbox.get()
            if text is None:
                break
            await websocket.send_text(text)
    connection.closed = True
    with contextlib.suppress(Exception):
        await websocket.close()


def _parse(text: str | None, limit: int) -> dict[str, Any] | str:
    """A client message as a JSON object, or what is wrong with it."""
    if text is None:
        return "send text messages"
    if len(text) > limit:
        return f"a message is at most {limit} bytes"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "the message is not JSON"
    if not isinstance(data, dict):
        return "a message is a JSON object"
    return data


async def _play(websocket: WebSocket, hub: Hub, settings: ServerSettings) -> None:
    """One websocket: hello, then moves, until either side closes."""
    if not _same_origin(websocket.headers):
        await websocket.close(code=1008)
        return
    try:
        live = await hub.load(websocket.path_params["match"])
    except Elsewhere as error:
        await websocket.accept()
        with contextlib.suppress(Exception):
            await websocket.send_text(_error(None, "elsewhere", str(error), address=error.address))
            await websocket.close(code=1013)  # try again later, there
        return
    if live is None:
        await websocket.close(code=1008)
        return
    await websocket.accept()
    try:
        hello_text = await asyncio.wait_for(websocket.receive(), settings.hello_seconds)
    except (TimeoutError, WebSocketDisconnect):
        await websocket.close(code=1008)
        return
    hello = _parse(hello_text.get("text"), settings.max_message)
    problem = _hello_problem(hello, live)
    if problem is not None:
        with contextlib.suppress(Exception):
            await websocket.send_text(_error(None, "hello", problem))
            await websocket.close(code=1008)
        return
    assert isinstance(hello, dict)
    seat = live.seat_of(hello.get("token")) if "token" in hello else None
    connection = Connection(seat)
    writer = asyncio.create_task(_writer(websocket, connection))
    since = hello.get("since")
    hub.connect(live, connection, since)
    bucket = _Bucket(settings.rate, settings.burst)
    try:
        while not connection.closed:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                break
            data = _parse(received.get("text"), settings.max_message)
            if not bucket.take():
                if bucket.level < -settings.burst:
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
            await _handle(data, connection, live, hub)
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


async def _handle(data: dict[str, Any], connection: Connection, live: Live, hub: Hub) -> None:
    """One message after the hello."""
    if connection.closed:  # its seat was given up: nothing more is done for it
        return
    seat = connection.seat
    kind = data.get("type")
    if kind == "ping":
        connection.send(message_for(seat, "pong", version=live.version))
        return
    if kind != "move":
        connection.send(_error(seat, "malformed", 'the messages are "move" and "ping"'))
        return
    client_id = data.get("id")
    if not isinstance(client_id, str) or not 0 < len(client_id) <= MAX_ID:
        connection.send(_error(seat, "malformed", f"id: text of 1 to {MAX_ID} characters"))
        return
    if seat is None:
        connection.send(_error(seat, "forbidden", "a spectator makes no moves", id=client_id))
        return
    version, move = data.get("version"), data.get("move")
    if type(version) is not int or not 0 <= version <= MAX_VERSION:
        connection.send(_error(seat, "malformed", "version: the position's version", id=client_id))
        return
    if not isinstance(move, str) or not 0 < len(move) <= 200:
        connection.send(_error(seat, "malformed", "move: a move in notation", id=client_id))
        return
    await hub.play(live, connection, version, move, client_id)
