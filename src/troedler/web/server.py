"""The local web server of a browser game: Starlette routes served by uvicorn
on 127.0.0.1 only.

Every address carries the game's random token as its first path segment;
a request without it, or with a host other than the loopback address, is
refused before it reaches the game. The page itself is one self-contained
document (:mod:`troedler.web.page`) whose content security policy lets it
load nothing and talk only to this server.
"""

from __future__ import annotations

import json
import secrets
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from troedler.web.game import BrowserGame, Refused
from troedler.web.page import page_html

__all__ = ["make_app", "serve"]

MAX_BODY = 4096
"""The largest request body a game reads: a move is a few dozen bytes."""
IDLE_LIMIT = 4 * 3600.0
"""Seconds without a request after which the server stops."""
AFTER_THE_END = 60.0
"""Seconds the server stays up once the final scoring has been sent."""

_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def _csp(nonce: str) -> str:
    return (
        "default-src 'none'; "
        f"script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
        "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


class _Clock:
    """When the server last heard from the page, and when the game's end was shown."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.ended: float | None = None


def make_app(
    game: BrowserGame, token: str, *, pause_ms: int = 700, clock: _Clock | None = None
) -> Starlette:
    """The web application of ``game``, answering only under ``/<token>/``.

    ``pause_ms`` is how long the page waits before showing each opponent's move.
    """
    clock = clock if clock is not None else _Clock()

    def refused(
        message: str,
        status: int,
        rule: str | None = None,
        failure: dict[str, Any] | None = None,
    ) -> JSONResponse:
        body: dict[str, Any] = {"error": message}
        if rule is not None:
            body["rule"] = rule
        if failure is not None:
            body["failure"] = failure
        return JSONResponse(body, status_code=status, headers=_HEADERS)

    def authorised(request: Request) -> bool:
        given = request.path_params.get("token", "")
        return isinstance(given, str) and secrets.compare_digest(
            given.encode("utf-8", "replace"), token.encode()
        )

    async def page(request: Request) -> Response:
        if not authorised(request):
            return refused("forbidden: this game's address carries its token", 403)
        clock.last = time.monotonic()
        nonce = secrets.token_urlsafe(16)
        headers = dict(_HEADERS)
        headers["Content-Security-Policy"] = _csp(nonce)
        return HTMLResponse(
            page_html(nonce, game.names[game.seat], pause_ms=pause_ms), headers=headers
        )

    async def state(request: Request) -> Response:
        if not authorised(request):
            return refused("forbidden: this game's address carries its token", 403)
        clock.last = time.monotonic()
        return _answer(game.view(), clock)

    def action(
        run: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            if not authorised(request):
                return refused("forbidden: this game's address carries its token", 403)
            clock.last = time.monotonic()
            if request.headers.get("content-type", "").split(";")[0] != "application/json":
                return refused("send the request as application/json", 415)
            body = await _bounded_body(request)
            if body is None:
                return refused(f"a request is at most {MAX_BODY} bytes", 413)
            try:
                data = json.loads(body)
            except (ValueError, UnicodeDecodeError):
                return refused("the request is not JSON", 400)
            if not isinstance(data, dict):
                return refused("the request must be a JSON object", 400)
            try:
                return _answer(run(data), clock)
            except Refused as error:
                return refused(str(error), error.status, error.rule, error.failure)

        return handle

    routes = [
        Route("/{token}/", page, methods=["GET"]),
        Route("/{token}/state", state, methods=["GET"]),
        Route(
            "/{token}/move",
            action(lambda d: game.move(d.get("seq"), d.get("move"))),
            methods=["POST"],
        ),
        Route(
            "/{token}/click",
            action(
                lambda d: game.click(
                    d.get("seq"), village=d.get("village"), card=d.get("card"), pile=d.get("pile")
                )
            ),
            methods=["POST"],
        ),
        Route("/{token}/step", action(lambda d: game.step(d.get("seq"))), methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1"])],
    )

    async def not_found(request: Request, exc: Exception) -> Response:
        return refused("no such address", 404)

    # A redirect would answer a request without the token with something else than a refusal.
    app.router.redirect_slashes = False
    app.add_exception_handler(404, not_found)
    app.add_exception_handler(405, not_found)
    return app


def _answer(view: dict[str, Any], clock: _Clock) -> JSONResponse:
    if view.get("over") and clock.ended is None:
        clock.ended = time.monotonic()
    return JSONResponse(view, headers=_HEADERS)


def serve(
    game: BrowserGame,
    *,
    open_browser: bool = True,
    write: Callable[[str], None] = print,
    ready: Callable[[str], None] | None = None,
) -> int:
    """Serve ``game`` on 127.0.0.1 at a free port until it is over and shown, or Ctrl-C.

    The address (with its token) is printed, and opened in a browser when
    ``open_browser`` and one can be; ``ready`` is called with it once the
    server listens. The exit status: 0, or 130 after Ctrl-C.
    """
    token = secrets.token_urlsafe(24)
    clock = _Clock()
    app = make_app(game, token, clock=clock)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    url = f"http://127.0.0.1:{port}/{token}/"
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.5):
            if not server.started:
                continue
            now = time.monotonic()
            if now - clock.last > IDLE_LIMIT or (
                clock.ended is not None and now - clock.ended > AFTER_THE_END
            ):
                server.should_exit = True
                return

    def announce() -> None:
        while not server.started and not stop.wait(0.05):
            pass
        write(f"Your game is at {url}")
        write("Keep this address to yourself: it lets whoever has it play your seat.")
        sys.stdout.flush()  # a pipe would hold the address back
        if ready is not None:
            ready(url)
        if open_browser:
            try:
                opened = webbrowser.open(url)
            except webbrowser.Error:
                opened = False
            if not opened:
                write("No browser could be opened: open the address above in one.")

    watcher = threading.Thread(target=watch, daemon=True)
    herald = threading.Thread(target=announce, daemon=True)
    watcher.start()
    herald.start()
    status = 0
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:
        status = 130
    finally:
        stop.set()
        listener.close()
        game.close()
    write(f"The game is saved in {game.save_path}.")
    if not game.state.is_over:
        write("It is not over: resume it with --resume.")
    sys.stdout.flush()
    return status


async def _bounded_body(request: Request) -> bytes | None:
    """The request's body, or None once it passes :data:`MAX_BODY` bytes.

    Read piece by piece, so that a client cannot make the server hold more
    than that in memory, whatever its Content-Length says.
    """
    declared = request.headers.get("content-length", "")
    if declared.isdecimal() and int(declared[:12]) > MAX_BODY:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return bytes(body)
