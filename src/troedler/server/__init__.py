"""A game server: people play troedler with each other over the network.

``troedler serve`` runs it (the ``server`` extra). Matches live in a
database (SQLite by default, PostgreSQL by URL); the lobby is an HTTP JSON
API and a match is played over a websocket, both described in
``docs/server.md``:

- :class:`ServerSettings` and :func:`make_app`: the application, for uvicorn
  or any ASGI server;
- :func:`troedler.server.protocol.message_for`: what a seat or a spectator
  receives, built as the server builds it.
"""

from troedler.server.app import ServerSettings, make_app
from troedler.server.protocol import PROTOCOL, message_for

__all__ = ["PROTOCOL", "ServerSettings", "make_app", "message_for"]
