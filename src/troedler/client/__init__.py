"""troedler's one client: the page people play, watch and replay games on.

The page is made of files of this package, not Python strings:
``page.html``, ``client.css``, ``draw.js`` (what it draws, from the
server's messages), ``live.js`` (the lobby and a match over the server's
websocket) and ``replay.js`` (stepping through a finished game). The game
server (:mod:`troedler.server`) serves them under its strict content
security policy, and ``troedler play --browser`` is that server, run
privately; :func:`replay_html` inlines the same files, with a game's
positions, into one self-contained page (``troedler replay --html``).

The page states no rule of the game: every fact it shows comes from the
engine through the protocol (:mod:`troedler.server.protocol`).

>>> "draw.js" in asset("page.html")
True
"""

from __future__ import annotations

from troedler.client.files import ASSETS, asset
from troedler.client.replay import replay_html, write_replay_html

__all__ = ["ASSETS", "asset", "replay_html", "write_replay_html"]
