"""Game states as JSON, and reading them back without trusting the text.

``state_from_json(state_to_json(state)) == state`` for every reachable state.
Text from outside is checked field by field: anything malformed or hostile
raises :class:`FormatError` whose message gives the path of the offending
field (``players[2].hand[0]``), and no partly built state ever escapes.
The fields are read by :func:`troedler.io.fields.state_from_fields`, as
those of a position text are. The format is documented in
``docs/format.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from troedler.core.board import Board
from troedler.core.cards import Card, CardCatalogue, fingerprint
from troedler.core.datafile import Fields
from troedler.core.errors import FormatError, quote
from troedler.core.state import GameState
from troedler.io.fields import (
    STATE_FORMAT,
    STATE_VERSION,
    rules_to_data,
    state_from_fields,
    writable,
)

__all__ = [
    "MAX_JSON_CHARS",
    "MAX_JSON_CONTAINERS",
    "MAX_JSON_DEPTH",
    "fingerprint",
    "load_json",
    "state_from_json",
    "state_to_json",
]

MAX_JSON_CHARS = 4_000_000
"""Longest JSON text accepted, in characters: far beyond any real game."""
_MOST_BYTES_PER_CHAR = 4
"""UTF-8 writes a character in at most four bytes."""
MAX_JSON_DEPTH = 8
"""Deepest nesting of arrays and objects accepted; troedler's documents need 4."""
MAX_JSON_CONTAINERS = 2_000
"""Most ``[`` and ``{`` a text may hold, strings included: a state needs about
30, a record about 10 (and seat names may hold a few). Counted before
parsing, so a text of a million empty objects costs milliseconds."""


# --- writing -----------------------------------------------------------------


def _codes(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


def state_to_json(state: GameState) -> str:
    """``state`` as JSON text (see ``docs/format.md``).

    Only a state :func:`state_from_json` reads back is written: one that
    passes :func:`troedler.check_invariants`. Any other raises
    :class:`~troedler.ConfigurationError` naming what is wrong.

    >>> from troedler import new_game
    >>> state = new_game(2, seed=1)
    >>> state_from_json(state_to_json(state)) == state
    True
    """
    state = writable(state)
    board = state.board
    last_discard = state.turn.last_discard
    data = {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "rules": rules_to_data(state.rules),
        "fingerprint": fingerprint(board, state.cards),
        "seed": state.seed,
        "shuffles": state.shuffles,
        "round": state.round,
        "dealer": state.dealer,
        "phase": state.phase.name.lower(),
        "current_player": state.current_player,
        "game_round_pile": _codes(state.game_round_pile),
        "dealer_piles": [None if pile is None else _codes(pile) for pile in state.dealer_piles],
        "discard_pile": _codes(state.discard_pile.cards),
        "village_goods": {
            village.name: str(goods)
            for village, goods in zip(board.villages, state.village_goods, strict=True)
        },
        "players": [
            {
                "cart": player.cart,
                "hand": _codes(player.hand),
                "goods": str(player.goods),
                "value_pile": _codes(player.value_pile),
            }
            for player in state.players
        ],
        "turn": {
            "played": _codes(state.turn.played),
            "delivered_to": list(state.turn.delivered_to),
            "discards_due": state.turn.discards_due,
            "last_discard": None if last_discard is None else str(last_discard),
        },
    }
    return json.dumps(data)


# --- reading -------------------------------------------------------------------


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


class _RepeatedKey(Exception):
    """A JSON object names one key twice."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    table = dict(pairs)
    if len(table) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return table


_CONTAINERS = frozenset((dict, list))


def _depth_above(value: object, limit: int) -> bool:
    """Whether arrays and objects in ``value`` nest more than ``limit`` deep."""
    level = [value]
    for _ in range(limit):
        inner: list[object] = []
        for item in level:
            items = item.values() if type(item) is dict else item if type(item) is list else ()
            # Most arrays hold only cards or numbers: a look at their types
            # (in C) spares looking at each item.
            if _CONTAINERS & set(map(type, items)):
                inner.extend(x for x in items if type(x) is dict or type(x) is list)
        if not inner:
            return False
        level = inner
    return True


def load_json(text: str | bytes, source: str) -> object:
    """Parse JSON text from outside; :class:`FormatError` for anything that is
    not JSON, names a key twice in one object, or nests more than
    :data:`MAX_JSON_DEPTH` deep."""
    if isinstance(text, bytes | bytearray):
        if len(text) > _MOST_BYTES_PER_CHAR * MAX_JSON_CHARS:
            raise FormatError(source, "", f"is {len(text)} bytes, more than allowed")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise FormatError(source, "", f"is not UTF-8 text (byte {error.start})") from None
    if not isinstance(text, str):
        raise FormatError(source, "", f"expected JSON text, got {type(text).__name__}")
    if len(text) > MAX_JSON_CHARS:
        raise FormatError(source, "", f"is {len(text)} characters, more than {MAX_JSON_CHARS}")
    if text.count("{") + text.count("[") > MAX_JSON_CONTAINERS:
        raise FormatError(source, "", f"holds more than {MAX_JSON_CONTAINERS} arrays and objects")
    try:
        data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_object)
    except RecursionError:
        raise FormatError(source, "", "is nested too deeply") from None
    except _RepeatedKey as repeated:
        # With a key twice, readers disagree on which value counts: refuse both.
        raise FormatError(
            source, "", f"names the key {quote(repeated.args[0])} twice in one object"
        ) from None
    except ValueError as error:  # JSONDecodeError, and integers too long to read
        raise FormatError(source, "", f"is not valid JSON ({quote(str(error), 120)})") from None
    if _depth_above(data, MAX_JSON_DEPTH):
        raise FormatError(source, "", f"is nested more than {MAX_JSON_DEPTH} deep")
    return data


def state_from_json(
    text: str | bytes, *, board: Board | None = None, cards: CardCatalogue | None = None
) -> GameState:
    """The game state written as ``text`` by :func:`state_to_json`.

    ``board`` and ``cards`` default to troedler's own; a state of a game
    played with others needs them passed in (the fingerprint must match).
    Raises :class:`FormatError` naming the offending field.
    """
    return state_from_fields(Fields("state", "", load_json(text, "state")), board, cards)
