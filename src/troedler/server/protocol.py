"""What the server sends: every message a seat or a spectator receives is
built here, and nowhere else: its public fields by :class:`Frame`, the
recipient's position by :func:`position_text` (:func:`message_for` joins
the two for one recipient; the server writes a message's fields once and
adds each recipient's position).

This module is where hidden information could leak, so it is the one
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

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import orjson

from troedler.core.board import Board
from troedler.core.cards import UNKNOWN, Card
from troedler.core.goods import Goods
from troedler.core.legal import legal_moves
from troedler.core.moves import Move
from troedler.core.scoring import outcome
from troedler.core.state import GameState, Turn
from troedler.io.records import result_to_data
from troedler.seat import Observation, Recall, observe
from troedler.svg import board_picture

__all__ = [
    "PROTOCOL",
    "Frame",
    "map_for",
    "message_for",
    "position_for",
    "position_text",
    "public_observation",
]

PROTOCOL = 1
"""The version of the websocket protocol; a client names it in its hello."""
MAX_TEXTS = 50_000
"""Texts of cards, goods and moves kept at once."""


def public_observation(state: GameState) -> Observation:
    """What lies on the table for all to see: what seat 0 sees with
    ``recall="table"``. A spectator sees this without seat 0's hand and
    value pile (:func:`position_for`), and has no legal moves."""
    return observe(state, 0, recall="table")


def map_for(state: GameState, names: Sequence[str]) -> str:
    """The map (the villages, their goods, the carts) as an SVG document,
    drawn from what a spectator sees: the same for every recipient, and
    nothing in it that any seat does not know."""
    return board_picture(public_observation(state), names=names, panel=False).svg()


def _texts() -> Callable[[Hashable], str]:
    """``str`` of a card, goods or move, kept: the same few values are
    written in every message (the same goods thousands of times a second)."""
    known: dict[Hashable, str] = {}

    def text(value: Hashable) -> str:
        found = known.get(value)
        if found is None:
            if len(known) >= MAX_TEXTS:  # bounded, whatever values come
                known.clear()
            found = known[value] = str(value)
        return found

    return text


_text = _texts()
_villages_seen: dict[int, tuple[object, dict[str, str], str]] = {}


def _villages(board: Board, goods: tuple[Goods, ...]) -> tuple[dict[str, str], str]:
    """Each village's goods as text, and that as JSON, kept for the tuple a
    state holds (a state shares it with the states before it until a
    village changes)."""
    found = _villages_seen.get(id(goods))
    if found is None or found[0] is not goods:  # the tuple is held, so its id is its own
        if len(_villages_seen) >= MAX_TEXTS:
            _villages_seen.clear()
        names = {
            village.name: _text(held) for village, held in zip(board.villages, goods, strict=True)
        }
        found = _villages_seen[id(goods)] = (goods, names, _dumps(names))
    return found[1], found[2]


_piles_seen: dict[tuple[Hashable | None, ...], list[str | None]] = {}


def _codes(cards: Sequence[Card] | None) -> list[str | None] | None:
    """The cards' codes (None for a card not known), kept for each tuple of
    cards seen: hands and piles change a card at a time, and are written
    in every message."""
    if cards is None:
        return None
    key = cards if type(cards) is tuple else tuple(cards)
    found = _piles_seen.get(key)
    if found is None:
        if len(_piles_seen) >= MAX_TEXTS:
            _piles_seen.clear()
        found = _piles_seen[key] = [None if card is UNKNOWN else _text(card) for card in key]
    return list(found)


def _seen(
    state: GameState, viewer: int | None, recall: Recall
) -> tuple[Observation, tuple[bool, ...], tuple[Move, ...]]:
    """What ``viewer`` (a seat, or None for a spectator) knows of ``state``:
    the view, whose hands it knows, and its legal moves (none but its own)."""
    if viewer is None:
        return public_observation(state), (False,) * state.num_players, ()
    seen = observe(state, viewer, recall=recall)
    return seen, tuple(map(seen.knows_hand, range(state.num_players))), legal_moves(seen)


def _players(seen: Observation, known: tuple[bool, ...]) -> list[dict[str, Any]]:
    return [
        {
            "cart": player.cart,
            "goods": _text(player.goods),
            "hand": _codes(player.hand) if knows else None,
            "hand_size": len(player.hand),
            "value_pile": _codes(player.value_pile) if knows else None,
            "value_pile_size": len(player.value_pile),
        }
        for player, knows in zip(seen.players, known, strict=True)
    ]


def _turn(turn: Turn) -> dict[str, Any]:
    last = turn.last_discard
    return {
        "played": _codes(turn.played),
        "delivered_to": list(turn.delivered_to),
        "discards_due": turn.discards_due,
        "last_discard": None if last is None else _text(last),
    }


def position_for(state: GameState, viewer: int | None, recall: Recall) -> dict[str, Any]:
    """The position as ``viewer`` (a seat, or None for a spectator) may know it,
    as JSON data, with the viewer's legal moves in notation when it is its turn
    (``[]`` otherwise).

    Its fields are those of the bot protocol's observation
    (:func:`troedler.bots.program.observation_to_data`) but its version,
    written here with the texts of cards, goods and moves kept.
    """
    seen, known, moves = _seen(state, viewer, recall)
    data: dict[str, Any] = {
        "seat": viewer,
        "recall": seen.recall,
        "round": seen.round,
        "dealer": seen.dealer,
        "phase": seen.phase.name.lower(),
        "current_player": seen.current_player,
        "shuffles": seen.shuffles,
        "game_round_pile_size": len(seen.game_round_pile),
        "dealer_piles": [_codes(pile) for pile in seen.dealer_piles],
        "discard_pile": _codes(seen.discard_pile.cards),
        "village_goods": dict(_villages(seen.board, seen.village_goods)[0]),
        "players": _players(seen, known),
        "turn": _turn(seen.turn),
        "legal_moves": [_text(move) for move in moves],
    }
    if state.is_over:
        data["result"] = result_to_data(outcome(state))
    return data


_fragments: dict[tuple[str, Hashable], str] = {}


def _kept(kind: str, key: Hashable, make: Callable[[], object]) -> str:
    """The JSON text of ``make()``, kept for ``key``: a part of a position
    that many positions share (the same players' cards version after
    version, the same piles for every seat)."""
    slot = (kind, key)
    try:
        found = _fragments.get(slot)
    except TypeError:  # a part that cannot be a key: written afresh
        return _dumps(make())
    if found is None:
        if len(_fragments) >= MAX_TEXTS:
            _fragments.clear()
        found = _fragments[slot] = _dumps(make())
    return found


def _number(value: int | None) -> str:
    return "null" if value is None else str(int(value))


def position_text(state: GameState, viewer: int | None, recall: Recall) -> str:
    """:func:`position_for` as JSON text (its keys sorted), as every message
    carries it: written from parts kept across positions, so that a
    position costs little more than its observation."""
    seen, known, moves = _seen(state, viewer, recall)
    players = (seen.players, known)
    parts = [
        '{"current_player":',
        _number(seen.current_player),
        ',"dealer":',
        _number(seen.dealer),
        ',"dealer_piles":',
        _kept("dealer_piles", seen.dealer_piles, lambda: [_codes(p) for p in seen.dealer_piles]),
        ',"discard_pile":',
        _kept("discard_pile", seen.discard_pile, lambda: _codes(seen.discard_pile.cards)),
        ',"game_round_pile_size":',
        _number(len(seen.game_round_pile)),
        ',"legal_moves":',
        _kept("legal_moves", moves, lambda: [_text(m) for m in moves]),
        ',"phase":"',
        seen.phase.name.lower(),
        '","players":',
        _kept("players", players, lambda: _players(seen, known)),
        ',"recall":',
        _dumps(seen.recall),
    ]
    if state.is_over:
        parts += [',"result":', _dumps(result_to_data(outcome(state)))]
    parts += [
        ',"round":',
        _number(seen.round),
        ',"seat":',
        _number(viewer),
        ',"shuffles":',
        _number(seen.shuffles),
        ',"turn":',
        _kept("turn", seen.turn, lambda: _turn(seen.turn)),
        ',"village_goods":',
        _villages(seen.board, seen.village_goods)[1],
        "}",
    ]
    return "".join(parts)


def _dumps(data: object) -> str:
    # orjson: a position in a tenth of the time of json.dumps (measured).
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()


class Frame:
    """One message's fields that are the same for every recipient, written
    as JSON once; :meth:`to` gives a recipient's copy, with its position."""

    __slots__ = ("_bare", "_head", "_public", "_tail")

    def __init__(self, kind: str, **public: Any) -> None:
        self._public: dict[str, Any] = {"type": kind, "protocol": PROTOCOL, **public}
        self._bare: str | None = None
        self._head: str | None = None
        self._tail = ""

    def to(self, position: str | None) -> str:
        """The message's text, with ``position`` (JSON text) if not None."""
        if position is None:
            if self._bare is None:
                self._bare = _dumps(self._public)
            return self._bare
        if self._head is None:
            # The only "position" key of the message is at its top: the other
            # fields' objects have their own keys, and text in a value has its
            # quotes escaped.
            text = _dumps({**self._public, "position": None})
            self._head, _, self._tail = text.partition('"position":null')
        return f'{self._head}"position":{position}{self._tail}'


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
    the same for every recipient (a move's text, a version, names). The
    server sends a message to many recipients through :class:`Frame` and
    :func:`position_text`, as this function does for one.
    """
    position = None if state is None else position_text(state, viewer, recall)
    return Frame(kind, **public).to(position)
