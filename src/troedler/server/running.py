"""Running the server's application under uvicorn: the listening socket, the
settings every server process runs with, and a clean stop that tells each
connection why it is closed.

``troedler serve`` and the private server of ``troedler play --browser``
both run through :func:`run`.
"""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Callable

import uvicorn
from starlette.applications import Starlette

from troedler.server.hub import Hub

__all__ = ["Stoppable", "listener", "run"]


def listener(host: str, port: int) -> socket.socket:
    """A socket bound to ``host`` and ``port`` (0: any free one); OSError if it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    bound = socket.socket(family, socket.SOCK_STREAM)
    bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        bound.bind((host, port))
    except OSError:
        bound.close()
        raise
    return bound


class Stoppable(uvicorn.Server):
    """uvicorn's server, which at its stop first closes every websocket with
    1012 and the server's reason (uvicorn's own stop closes them with none)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.hub: Hub | None = None
        """The application's hub, once it has started."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.hub is not None:
            await self.hub.say_goodbye()
        await super().shutdown(sockets)


def run(
    make_app: Callable[[Callable[[Hub], None]], Starlette],
    bound: socket.socket,
    *,
    max_message: int,
    compression: bool = False,
    started: Callable[[Stoppable], None] | None = None,
) -> int:
    """Serve the application ``make_app(on_ready)`` makes on ``bound`` until
    SIGTERM or Ctrl-C; the exit status (130 after Ctrl-C). The application
    calls ``on_ready`` with its hub once it has started; ``started`` is
    called, on a thread of its own, once the server listens."""
    servers: list[Stoppable] = []

    def ready(hub: Hub) -> None:
        servers[0].hub = hub

    config = uvicorn.Config(
        make_app(ready),
        log_level="warning",
        access_log=False,
        lifespan="on",
        loop="auto",  # uvloop where the server extra installed it: far less CPU a move
        ws="websockets-sansio",
        # One limit: a larger message closes the connection (1009, with a reason).
        ws_max_size=max_message,
        ws_per_message_deflate=compression,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=5,
    )
    server = Stoppable(config)
    servers.append(server)

    def announce() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started and started is not None:
            started(server)

    threading.Thread(target=announce, daemon=True).start()
    # uvicorn raises the signal that stopped it again once it has shut down;
    # SIGTERM has then done its work, and the command ends normally.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda _signal, _frame: None)
    try:
        # uvicorn turns SIGTERM and SIGINT into a graceful shutdown: the
        # lifespan's end stops clocks and bots; every accepted move is stored.
        server.run(sockets=[bound])
    except KeyboardInterrupt:
        return 130
    finally:
        bound.close()
    return 0
