"""One websocket's place in a match: its seat, and the messages waiting to
be written to it, in order, by its writer."""

from __future__ import annotations

import asyncio

__all__ = ["OUTBOX", "Close", "Connection"]

OUTBOX = 512
"""Messages queued for one connection before it counts as too slow and is closed."""


class Close:
    """The close codes the server sends (``docs/server.md`` lists them)."""

    NORMAL = 1000
    """The server has nothing more for this connection (its seat was given up)."""
    POLICY = 1008
    """The client broke a rule: its hello, its origin, its rate, or it did not read."""
    TOO_BIG = 1009
    """A message over the size limit."""
    RESTART = 1012
    """The server process is stopping: connect again (to any process)."""


class Connection:
    """One websocket's place in a match: its seat (None: a spectator), the
    token it came with, and its queue of messages, which a writer task
    sends in order."""

    def __init__(self, seat: int | None, token_hash: str | None = None) -> None:
        self.seat = seat
        self.token_hash = token_hash
        """The hash of the token the seat was taken with (its seat's while it holds it)."""
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX)
        self.closed = False
        self.code = Close.NORMAL
        self.reason = ""
        self.finished = asyncio.Event()
        """Set once its writer has sent the close frame (or found the socket gone)."""

    def send(self, text: str) -> None:
        """Queue ``text``; a connection that lets its queue fill up is closed."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.close(Close.POLICY, f"{OUTBOX} messages were not read")

    def close(self, code: int = Close.NORMAL, reason: str = "") -> None:
        """Stop the connection's writer (after what is queued), closing the
        websocket with ``code`` and ``reason``."""
        if not self.closed:
            self.closed = True
            self.code, self.reason = code, reason
            if self.outbox.full():  # the stop must get in, or the writer waits for ever
                self.outbox.get_nowait()
            self.outbox.put_nowait(None)
