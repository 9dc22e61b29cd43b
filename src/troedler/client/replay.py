"""A recorded game as one self-contained page that replays it in a browser.

The page is the client's own (:mod:`troedler.client`): its files inlined,
with every position of the game as the protocol writes it for someone who
sees everything (:func:`troedler.server.protocol.position_for`), each move
with its facts, and the table. Its content security policy names the
hashes of its own script and style and lets it load nothing at all, so it
works offline and from an attachment.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from typing import Any

from troedler.client.files import asset
from troedler.core.board import Board
from troedler.core.cards import CardCatalogue
from troedler.io.notation import parse_move
from troedler.io.records import GameRecord, replay
from troedler.server.protocol import EVERYTHING, move_facts, position_for, table_for

__all__ = ["replay_data", "replay_html", "write_replay_html"]

_STYLE_TAG = '<link rel="stylesheet" href="client/client.css">'
_DRAW_TAG = '<script src="client/draw.js" defer></script>'
_LIVE_TAG = '<script src="client/live.js" defer></script>'


def replay_data(
    record: GameRecord, *, board: Board | None = None, cards: CardCatalogue | None = None
) -> dict[str, Any]:
    """What the replay page shows of ``record``: the table, the seats' names,
    and each step (the start, then each move) with its position, the seat
    that moved, the move and its facts. :class:`~troedler.FormatError` if
    the record does not replay (with ``board`` and ``cards``, if given)."""
    states = replay(record, board=board, cards=cards)
    steps: list[dict[str, Any]] = []
    for number, state in enumerate(states):
        position = position_for(state, EVERYTHING, "perfect")
        position["seat"] = None
        step: dict[str, Any] = {"position": position}
        if number:
            before = states[number - 1]
            text = record.moves[number - 1]
            step.update(
                seat=before.current_player,
                move=text,
                round=before.round,
                facts=move_facts(parse_move(text, before)),
            )
        steps.append(step)
    return {
        "table": table_for(states[0]),
        "names": list(record.seats),
        "steps": steps,
        "title": f"troedler: game of seed {record.seed}, {len(record.seats)} players",
    }


def _script_json(data: object) -> str:
    """JSON safe inside a script element: no ``</script>`` can end it early."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


def replay_html(
    record: GameRecord,
    *,
    board: Board | None = None,
    cards: CardCatalogue | None = None,
    title: str | None = None,
) -> str:
    """The page replaying ``record``, as HTML text: the client's page with
    its files inlined and the game's :func:`replay_data`."""
    data = replay_data(record, board=board, cards=cards)
    if title is not None:
        data["title"] = title
    page = asset("page.html")
    style, draw, stepper = asset("client.css"), asset("draw.js"), asset("replay.js")
    policy = (
        "default-src 'none'; "
        f"script-src {_hash(draw)} {_hash(stepper)}; style-src {_hash(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    for tag in (_STYLE_TAG, _DRAW_TAG, _LIVE_TAG, "<title>troedler</title>", "</body>"):
        if page.count(tag) != 1:
            raise RuntimeError(f"the page's file lacks {tag}")  # pragma: no cover
    page = page.replace(
        '<meta charset="utf-8">',
        f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{policy}">',
    )
    page = page.replace("<title>troedler</title>", f"<title>{html.escape(data['title'])}</title>")
    page = page.replace(_STYLE_TAG, f"<style>{style}</style>")
    page = page.replace(_DRAW_TAG, f"<script>{draw}</script>")
    page = page.replace(_LIVE_TAG, "")
    return page.replace(
        "</body>",
        f'<script type="application/json" id="replay-data">{_script_json(data)}</script>\n'
        f"<script>{stepper}</script>\n</body>",
    )


def write_replay_html(
    record: GameRecord,
    path: str | Path,
    *,
    board: Board | None = None,
    cards: CardCatalogue | None = None,
) -> None:
    """Write :func:`replay_html` of ``record`` to ``path`` (UTF-8)."""
    Path(path).write_text(replay_html(record, board=board, cards=cards), encoding="utf-8")
