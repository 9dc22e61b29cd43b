"""troedler's one client: the page people play, watch and replay games on.

The page is made of files of this package, not Python strings:
``page.html``, ``client.css``, ``draw.js`` (what it draws, from the
server's messages), ``live.js`` (the lobby and a match over the server's
websocket) and ``replay.js`` (stepping through a finished game). The game
server (:mod:`troedler.server`) serves them under its strict content
security policy, and ``troedler play --browser`` is that server, run
privately; :func:`standalone` inlines the same files, with a game's
positions, into one self-contained page (``troedler replay --html``,
:func:`troedler.server.replay.replay_html`). The package imports nothing
else of troedler: the server serves it, and builds the data it shows.

The page states no rule of the game: every fact it shows comes from the
engine through the protocol (:mod:`troedler.server.protocol`).

>>> "draw.js" in asset("page.html")
True
"""

from __future__ import annotations

from troedler.client.files import ASSETS, asset
from troedler.client.standalone import standalone

__all__ = ["ASSETS", "asset", "standalone"]
