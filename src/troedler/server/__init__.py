"""A game server: people play troedler with each other over the network.

``troedler serve`` runs it (the ``server`` extra). Matches live in a
database (SQLite by default, PostgreSQL by URL); the lobby is an HTTP JSON
API and a match is played over a websocket, both described in
``docs/server.md``; the page it serves is :mod:`troedler.client`'s.

- :class:`ServerSettings` and :func:`make_app`: the application, for uvicorn
  or any ASGI server;
- :func:`troedler.server.protocol.message_for`: what a seat or a spectator
  receives, built as the server builds it.

The protocol's module needs none of the server extra's packages (the
replay page is built from its positions); the rest is imported when first
named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from troedler.server.protocol import PROTOCOL, message_for

if TYPE_CHECKING:
    from troedler.server.app import ServerSettings, make_app

__all__ = ["PROTOCOL", "ServerSettings", "make_app", "message_for"]


def __getattr__(name: str) -> Any:
    if name in ("ServerSettings", "make_app"):
        from troedler.server import app  # noqa: PLC0415 - the server extra, when needed

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
