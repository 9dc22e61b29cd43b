"""What the server sends: every message a seat or a spectator receives is
built by :func:`message_for`, and nowhere else.

That one function is where hidden information could leak, so it is the one
place that decides what a recipient may know: a seat gets
:func:`troedler.observe` of its own seat (with the match's recall), a
spectator the public part of the table (``recall="table"`` of a seat, with
that seat's hand and value pile taken away). Neither includes another
seat's hidden cards, the order of a face-down pile, or the seed. The other
fields a caller passes (move texts, names, versions, who is connected) are
public by their nature: every card a move names lies face up once played.

The protocol is versioned (:data:`PROTOCOL`); ``docs/server.md`` describes it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from troedler.bots.program import observation_to_data
from troedler.core.legal import legal_moves
from troedler.core.scoring import outcome
from troedler.core.state import GameState
from troedler.io.records import result_to_data
from troedler.seat import Observation, Recall, observe
from troedler.svg import board_picture

__all__ = ["PROTOCOL", "map_for", "message_for", "position_for", "public_observation"]

PROTOCOL = 1
"""The version of the websocket protocol; a client names it in its hello."""


def public_observation(state: GameState) -> Observation:
    """What lies on the table for all to see: what seat 0 sees with
    ``recall="table"``. A spectator sees this without seat 0's hand and value
    pile (:func:`position_for`)."""
    return observe(state, 0, recall="table")


def map_for(state: GameState, names: Sequence[str]) -> str:
    """The map (the villages, their goods, the carts) as an SVG document,
    drawn from what a spectator sees: the same for every recipient, and
    nothing in it that any seat does not know."""
    return board_picture(public_observation(state), names=names, panel=False).svg()


def position_for(state: GameState, viewer: int | None, recall: Recall) -> dict[str, Any]:
    """The position as ``viewer`` (a seat, or None for a spectator) may know it,
    as JSON data, with the viewer's legal moves in notation when it is its turn."""
    seen = public_observation(state) if viewer is None else observe(state, viewer, recall=recall)
    data = observation_to_data(seen)
    del data["protocol"]  # the bot protocol's version, not this one's
    data["seat"] = viewer
    if viewer is None:  # a spectator holds no hand: seat 0's is not shown either
        data["players"][0]["hand"] = data["players"][0]["value_pile"] = None
    data["legal_moves"] = [] if viewer is None else [str(move) for move in legal_moves(seen)]
    if state.is_over:
        data["result"] = result_to_data(outcome(state))
    return data


def message_for(
    viewer: int | None,
    kind: str,
    *,
    state: GameState | None = None,
    recall: Recall = "perfect",
    **public: Any,
) -> str:
    """The JSON text of one message of type ``kind`` to ``viewer`` (a seat, or
    None for a spectator).

    With ``state``, the message carries the position as the viewer may know
    it (:func:`position_for`). ``public`` are further fields, which must be
    the same for every recipient (a move's text, a version, names).
    """
    body: dict[str, Any] = {"type": kind, "protocol": PROTOCOL, **public}
    if state is not None:
        body["position"] = position_for(state, viewer, recall)
    return json.dumps(body, separators=(",", ":"), sort_keys=True)
