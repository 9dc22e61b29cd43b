"""The server's web application: the lobby's HTTP JSON API and the
websocket that plays a match (``docs/server.md`` describes both).

A request is refused before it reaches a match when its Host is not one the
operator named, when a websocket's Origin is another site's, when a body or
a message is larger than its bound, or when a connection sends faster than
its rate. A seat's token travels only in an ``Authorization: Bearer`` header
or in a websocket's first message, never in an address.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from importlib.util import find_spec
from typing import Any
from urllib.parse import urlsplit

import attrs
from sqlalchemy import select
from sqlalchemy.engine import make_url
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

try:
    import fcntl
except ImportError:  # not POSIX: no lock on the SQLite file
    fcntl = None  # type: ignore[assignment]

from troedler.client import ASSETS, asset
from troedler.server.connection import Close
from troedler.server.hub import Hub
from troedler.server.match import Live
from troedler.server.replay import replay_html
from troedler.server.settings import MAX_ISMCTS, BadRequest, MatchSettings
from troedler.server.socket import Bucket
from troedler.server.socket import play as play_match
from troedler.server.store import DEFAULT_DATABASE, matches, migrate, parts_for

__all__ = ["ServerSettings", "make_app"]

_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}
MAX_CREATORS = 10_000
"""Client addresses whose match creations are counted at once (the oldest are forgotten)."""
LOBBY_BOTS = (
    "random",
    "greedy",
    "ismcts:100",
    f"ismcts:{MAX_ISMCTS}",
    "neural",
    "ismcts:150:neural",
)
"""The bots the page's lobby offers for a seat (a request may name others the
server allows); ``neural`` and the search it guides where numpy is installed
(the server extra brings it)."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own files, connections to its own
server, nothing else (no inline script or style, no other site)."""


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
    """The largest websocket message, in bytes; a larger one closes the
    connection (1009)."""
    rate: float = 10.0
    """Messages a connection may send each second, on average ..."""
    burst: int = 30
    """... and at once."""
    hello_seconds: float = 10.0
    """How long a new connection has to say hello."""
    name: str = "main"
    """This process's name among the processes sharing the database."""
    address: str = ""
    """Where this process listens (``http://host:port``), kept in the
    database's list of processes for the operator."""
    lease_seconds: float = 2.0
    """How long a process that stopped saying it is alive (stood still, or
    lost its machine) keeps its matches' clocks and bots; a process that
    dies is seen at once (PostgreSQL)."""
    max_waiting: int = 1000
    """Matches waiting for players at once, in the whole database; past it
    a new match is refused (503, ``busy``) until some start."""
    creates_per_minute: int = 20
    """Matches one client address may create a minute, on average and at
    once; past it a new match is refused (429, ``rate``). Behind a proxy
    every client has the proxy's address: raise it there."""
    base: str = ""
    """The path every address of the server begins with (``/TOKEN`` for a
    private server): the page and the API are under it, and nothing else is
    answered."""
    any_bot: bool = False
    """Whether a match may seat any bot :func:`troedler.bot_from_text` makes
    (``module:Class``, ``neural:PATH``): for a private server, whose person
    named them on their own command line; never for one open to others.
    Such a server also tells its page what a failed bot said (its error),
    not only what it did."""


def make_app(
    settings: ServerSettings,
    *,
    on_ready: Callable[[Hub], None] | None = None,
    prepare: Callable[[Hub], Awaitable[Callable[[], Awaitable[dict[str, Any]]]]] | None = None,
) -> Starlette:
    """The server's application. Its lifespan opens the database, migrates it,
    loads the matches being played (their clocks and bots go on) and, at the
    end, stops them, every accepted move being stored already.

    ``prepare`` (a private server's) runs once the hub has started; what it
    answers gives, at each request, what ``GET /api/server`` adds (the
    person's match and seat token: only a private server, whose every
    address carries its own random token, says them)."""
    state: dict[str, Hub] = {}
    local: list[Callable[[], Awaitable[dict[str, Any]]]] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        with alone_on(settings.database):
            engine, journal, cluster = parts_for(
                settings.database,
                name=settings.name,
                address=settings.address,
                lease_seconds=settings.lease_seconds,
            )
            await migrate(engine)
            hub = Hub(
                engine,
                journal,
                cluster,
                allow_exec=settings.allow_exec,
                bot_seconds=settings.bot_seconds,
                lease_seconds=settings.lease_seconds,
                max_waiting=settings.max_waiting,
                bot_details=settings.any_bot,
            )
            state["hub"] = hub
            await hub.start()
            if prepare is not None:
                local.append(await prepare(hub))
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
        return seat_and_token(request, live)[0]

    def seat_and_token(request: Request, live: Live) -> tuple[int, str]:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        seat = live.seat_of(token) if scheme.lower() == "bearer" else None
        if seat is None:
            raise BadRequest(
                "this needs the seat's token (Authorization: Bearer TOKEN)",
                status=403,
                code="forbidden",
            )
        return seat, token

    creators: OrderedDict[str, Bucket] = OrderedDict()
    """Each client address's bucket of match creations (the most recent ones)."""

    async def create(request: Request) -> Response:
        address = request.client.host if request.client is not None else ""
        bucket = creators.pop(address, None) or Bucket(
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
            await body(request), allow_exec=settings.allow_exec, any_bot=settings.any_bot
        )
        live = await hub().lobby.create(match_settings)
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
        seat, token = await hub().lobby.join(live, data.get("name"), data.get("seat"))
        return answer({"match": live.id, "seat": seat, "token": token}, 201)

    async def leave(request: Request) -> Response:
        live = await match_of(request)
        await hub().lobby.leave(live, seat_of(request, live))
        return answer(live.summary())

    async def rematch(request: Request) -> Response:
        live = await match_of(request)
        new, seat, token = await hub().lobby.rematch(live, *seat_and_token(request, live))
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

    async def moves_made(request: Request) -> Response:
        live = await match_of(request)
        if not live.settings.spectators:
            seat_of(request, live)  # a match nobody may watch: its seats only
        return answer({"match": live.id, "version": live.version, "moves": live.moves_made()})

    async def play(websocket: WebSocket) -> None:
        if not _same_origin(websocket.headers):
            await websocket.close(code=Close.POLICY)  # refused before the handshake: 403
            return
        await play_match(websocket, hub(), settings)

    async def not_found(request: Request, exc: Exception) -> Response:
        return refused("no such address", 404, "not_found")

    async def page(request: Request) -> Response:
        headers = {
            **_HEADERS,
            "Content-Security-Policy": CSP,
            "Cross-Origin-Opener-Policy": "same-origin",
        }
        return HTMLResponse(asset("page.html"), headers=headers)

    async def page_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS or name == "page.html":
            return refused("no such address", 404, "not_found")
        return Response(asset(name), media_type=ASSETS[name], headers=_HEADERS)

    async def about(request: Request) -> Response:
        data: dict[str, Any] = {"bots": offered, "local": bool(local)}
        if local:
            data.update(await local[0]())
        return answer(data)

    async def replay_page(request: Request) -> Response:
        live = await match_of(request)
        if live.status not in ("finished", "forfeited"):
            raise BadRequest(
                "a match's replay is given once it is over", status=409, code="not_over"
            )
        return HTMLResponse(replay_html(live.record()), headers=_HEADERS)

    learned = find_spec("numpy") is not None
    offered = [bot for bot in LOBBY_BOTS if learned or not bot.endswith("neural")]
    base = settings.base
    routes = [
        Route(f"{base}/", page, methods=["GET"]),
        Route(f"{base}/client/{{name}}", page_file, methods=["GET"]),
        Route(f"{base}/api/server", handler(about), methods=["GET"]),
        Route(f"{base}/api/matches", handler(create), methods=["POST"]),
        Route(f"{base}/api/matches", handler(listing), methods=["GET"]),
        Route(f"{base}/api/matches/{{match}}", handler(show), methods=["GET"]),
        Route(f"{base}/api/matches/{{match}}/join", handler(join), methods=["POST"]),
        Route(f"{base}/api/matches/{{match}}/leave", handler(leave), methods=["POST"]),
        Route(f"{base}/api/matches/{{match}}/rematch", handler(rematch), methods=["POST"]),
        Route(f"{base}/api/matches/{{match}}/record", handler(record), methods=["GET"]),
        Route(f"{base}/api/matches/{{match}}/replay", handler(replay_page), methods=["GET"]),
        Route(f"{base}/api/matches/{{match}}/moves", handler(moves_made), methods=["GET"]),
        Route(f"{base}/api/matches/{{match}}/map.svg", handler(map_picture), methods=["GET"]),
        WebSocketRoute(f"{base}/api/matches/{{match}}/play", play),
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


@contextmanager
def alone_on(database: str) -> Iterator[None]:
    """On an SQLite file, make sure this is the only server process using it
    (a lock on a file beside it, held while the server runs): several
    processes need PostgreSQL, which tells each of them the others' moves."""
    url = make_url(database)
    if url.get_backend_name() != "sqlite" or not url.database or fcntl is None:
        yield
        return
    with open(f"{url.database}.server-lock", "a") as held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RuntimeError(
                f"another server process uses {url.database}: several processes "
                "share a PostgreSQL database, not an SQLite file"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
