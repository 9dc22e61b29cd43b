"""A recorded game as one self-contained page that replays it in a browser.

The page is the client's own (:mod:`troedler.client`), its files inlined
(:func:`troedler.client.standalone`), with every position of the game as
this protocol writes it for someone who sees everything
(:func:`troedler.server.protocol.position_for`), each move with its facts,
and the table. ``troedler replay --html`` writes it; the server gives a
finished match's (``GET /api/matches/ID/replay``). None of the server
extra's packages is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from troedler.client import standalone
from troedler.core.board import Board
from troedler.core.cards import CardCatalogue
from troedler.io.notation import parse_move
from troedler.io.records import GameRecord, replay
from troedler.server.protocol import EVERYTHING, moved_facts, position_for, table_for

__all__ = ["replay_data", "replay_html", "write_replay_html"]


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
            seat = before.current_player
            cart = None if seat is None else before.players[seat].cart
            step.update(
                seat=seat,
                move=text,
                round=before.round,
                facts=moved_facts(parse_move(text, before), cart),
            )
        steps.append(step)
    return {
        "table": table_for(states[0]),
        "names": list(record.seats),
        "steps": steps,
        "title": f"troedler: game of seed {record.seed}, {len(record.seats)} players",
    }


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
    return standalone(data, data["title"])


def write_replay_html(
    record: GameRecord,
    path: str | Path,
    *,
    board: Board | None = None,
    cards: CardCatalogue | None = None,
) -> None:
    """Write :func:`replay_html` of ``record`` to ``path`` (UTF-8)."""
    Path(path).write_text(replay_html(record, board=board, cards=cards), encoding="utf-8")
