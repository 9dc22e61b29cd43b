"""The one reader of a position's fields, and what every format shares.

troedler writes a game state in two formats: a JSON document
(:mod:`troedler.io.state_json`) and one line of text
(:mod:`troedler.io.position_text`). Both are read into the same fields, the
JSON document's (``docs/format.md``), and :func:`state_from_fields` reads
those into a :class:`~troedler.GameState`: each check of a field, and the
words of each error (a :class:`~troedler.FormatError` naming the field),
is written once, here. A game record (:mod:`troedler.io.records`) begins
with the same preamble, read by :func:`read_preamble`: the format and
version, the rules, the board and cards by their fingerprint, the seed.
Every writer asks :func:`writable` first: only a state a game can reach is
written.
"""

from __future__ import annotations

from typing import Any

import attrs

from troedler.core.board import Board, default_board
from troedler.core.cards import (
    Card,
    CardCatalogue,
    default_cards,
    fingerprint,
    parse_card,
    sort_hand,
)
from troedler.core.datafile import Fields, array_items, describe
from troedler.core.errors import ConfigurationError, FormatError, NotationError, quote, some_of
from troedler.core.goods import TOTAL_GOODS, Goods
from troedler.core.invariants import located_problems, problems
from troedler.core.limits import MAX_ROUNDS, MAX_SEED, MAX_SHUFFLES, MIN_SEED
from troedler.core.pile import Pile
from troedler.core.rulebook import (
    MAX_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTION_RANGES,
    Rules,
    pile_count,
)
from troedler.core.state import GameState, Phase, PlayerState, Turn

__all__ = [
    "MAX_CARDS_IN_LIST",
    "MAX_CARD_CODE",
    "PHASES",
    "SEED_RANGE",
    "STATE_FORMAT",
    "STATE_VERSION",
    "Preamble",
    "board_and_cards",
    "read_preamble",
    "rules_to_data",
    "state_from_fields",
    "writable",
]

STATE_FORMAT = "troedler-state"
STATE_VERSION = 2
SEED_RANGE = (MIN_SEED, MAX_SEED)
"""The seeds a document may hold (see :mod:`troedler.core.limits`)."""
MAX_CARDS_IN_LIST = MAX_CARDS
"""Most cards one list of a document may hold."""
MAX_CARD_CODE = 40
"""Longest card code read, in characters: far beyond any real one."""
PHASES = {phase.name.lower(): phase for phase in Phase}
"""Each phase by the name the formats give it."""

_FIRST_VERSION = 1
"""Every format's first version: each version from it to the newest is read."""
_STATE_KEYS = (
    "format", "version", "rules", "fingerprint", "seed", "shuffles", "round", "dealer",
    "phase", "current_player", "game_round_pile", "dealer_piles", "discard_pile",
    "village_goods", "players", "turn",
)  # fmt: skip
_PLAYER_KEYS = ("cart", "hand", "goods", "value_pile")
_TURN_KEYS = ("played", "delivered_to", "discards_due", "last_discard")
_TURN_KEYS_OF_VERSION_1 = ("played", "delivered_to")
"""Version 1 knew no pending discards: its turns end in one move."""
_SWITCHES = ("two_player_rules", "reshuffle_mid_forming")
"""The rules' options that are true or false and always written."""


# --- writing -----------------------------------------------------------------


def writable(state: object) -> GameState:
    """``state``, if a writer may write it: a state a game can reach, which
    the readers read back; else :class:`~troedler.ConfigurationError` naming
    what is wrong."""
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {quote(state)}")
    found = problems(state)
    if found:
        raise ConfigurationError(
            "cannot write a state no game can reach: " + some_of(found, 3, separator="; ")
        )
    return state


def rules_to_data(rules: Rules) -> dict[str, Any]:
    """The rules as a JSON-ready table: every option, and ``explicit_chance``
    only when it is on, so that seeded games read as before."""
    data = {field.name: getattr(rules, field.name) for field in attrs.fields(Rules)}
    if not rules.explicit_chance:
        del data["explicit_chance"]
    return data


# --- the preamble ----------------------------------------------------------------


@attrs.frozen
class Preamble:
    """What a state document and a game record both begin with."""

    version: int
    """The document's format version."""
    rules: Rules
    board: Board
    """The board the fingerprint names: the one passed, or troedler's own."""
    cards: CardCatalogue
    """The cards the fingerprint names: those passed, or troedler's own."""
    seed: int


def read_preamble(
    top: Fields, document: str, newest: int, board: Board | None, cards: CardCatalogue | None
) -> Preamble:
    """The preamble of a ``document`` of format versions 1 to ``newest``:
    ``format``, ``version``, ``rules``, ``fingerprint`` (of ``board`` and
    ``cards``, which default to troedler's own) and ``seed``."""
    found = top.get("format")
    if found != document:
        raise top.error("format", f"expected {document!r}, got {describe(found)}")
    version = top.get("version")
    if type(version) is not int or not _FIRST_VERSION <= version <= newest:
        raise top.error(
            "version",
            f"unknown format version {describe(version)}; this reads {_FIRST_VERSION} to {newest}",
        )
    rules = _rules(top.table_at("rules"))
    board, cards = board_and_cards(top, board, cards)
    return Preamble(version, rules, board, cards, top.integer("seed", *SEED_RANGE))


def board_and_cards(
    top: Fields, board: Board | None, cards: CardCatalogue | None
) -> tuple[Board, CardCatalogue]:
    """``board`` and ``cards`` (troedler's own where None), if the
    ``fingerprint`` of ``top`` names them; else :class:`~troedler.FormatError`."""
    board = default_board() if board is None else board
    cards = default_cards() if cards is None else cards
    stamp = top.get("fingerprint")
    expected = fingerprint(board, cards)
    if stamp != expected:
        raise top.error(
            "fingerprint",
            f"the game used another board or cards ({describe(stamp)}); "
            f"these give {expected!r}: pass the board and cards it was played with",
        )
    return board, cards


def _rules(fields: Fields) -> Rules:
    fields.only(*(field.name for field in attrs.fields(Rules)))
    options: dict[str, Any] = {
        "num_players": fields.integer("num_players", MIN_PLAYERS, MAX_PLAYERS),
        **{name: fields.integer(name, *bounds) for name, bounds in OPTION_RANGES.items()},
        **{name: fields.boolean(name) for name in _SWITCHES},
        "explicit_chance": (
            fields.boolean("explicit_chance") if "explicit_chance" in fields.table else False
        ),
    }
    try:
        return Rules(**options)
    except ConfigurationError as error:
        raise fields.error("", str(error)) from None


# --- the fields of a position ---------------------------------------------------


def state_from_fields(
    top: Fields, board: Board | None = None, cards: CardCatalogue | None = None
) -> GameState:
    """The game state whose fields ``top`` holds (``docs/format.md``), checked
    field by field and then as a whole: :class:`~troedler.FormatError`
    naming the field at fault for anything that is not a position a game
    can reach."""
    top.only(*_STATE_KEYS)
    preamble = read_preamble(top, STATE_FORMAT, STATE_VERSION, board, cards)
    rules, board = preamble.rules, preamble.board
    n = rules.num_players
    phase = top.get("phase")
    if not isinstance(phase, str) or phase not in PHASES:
        raise top.error("phase", f"expected one of {', '.join(PHASES)}, got {describe(phase)}")
    names = tuple(village.name for village in board.villages)
    villages = top.table_at("village_goods")
    villages.only(*names)
    players = [_player(top.source, path, value, board) for path, value in top.items("players", n)]
    if len(players) != n:
        raise top.error("players", f"expected {n} players for these rules, got {len(players)}")
    state = GameState(
        rules=rules,
        board=board,
        cards=preamble.cards,
        shuffles=top.integer("shuffles", 0, MAX_SHUFFLES),
        round=top.integer("round", 1, MAX_ROUNDS),
        dealer=top.integer("dealer", 0, n - 1),
        phase=PHASES[phase],
        current_player=top.optional_integer("current_player", 0, n - 1),
        game_round_pile=_cards(top, "game_round_pile"),
        dealer_piles=tuple(
            None if value is None else _card_list(top.source, path, value)
            for path, value in top.items("dealer_piles", pile_count(n))
        ),
        discard_pile=Pile.of(_cards(top, "discard_pile")),
        village_goods=tuple(_goods(villages, name) for name in names),
        players=tuple(players),
        turn=_turn(top.table_at("turn"), preamble.version, board),
        seed=preamble.seed,
    )
    found = located_problems(state)
    if found:
        # The first problem, named by the field at fault: the fields are the
        # state's own.
        field, problem = found[0]
        raise top.error(field, f"is not a state a game can reach: {problem}")
    return state


def _player(source: str, path: str, value: object, board: Board) -> PlayerState:
    entry = Fields(source, path, value)
    entry.only(*_PLAYER_KEYS)
    return PlayerState(
        cart=_village(source, entry.path_of("cart"), entry.get("cart"), board),
        # Listed in any order; a state keeps them in hand order.
        hand=sort_hand(_cards(entry, "hand")),
        goods=_goods(entry, "goods"),
        value_pile=sort_hand(_cards(entry, "value_pile")),
    )


def _turn(turn: Fields, version: int, board: Board) -> Turn:
    delivered = tuple(
        _village(turn.source, path, value, board)
        for path, value in turn.items("delivered_to", len(board.villages))
    )
    if version == _FIRST_VERSION:
        turn.only(*_TURN_KEYS_OF_VERSION_1)
        return Turn(played=_cards(turn, "played"), delivered_to=delivered)
    turn.only(*_TURN_KEYS)
    last = turn.get("last_discard")
    last_path = turn.path_of("last_discard")
    return Turn(
        played=_cards(turn, "played"),
        delivered_to=delivered,
        discards_due=turn.integer("discards_due", 0, MAX_CARDS_IN_LIST),
        last_discard=None if last is None else _card(turn.source, last_path, last),
    )


def _card(source: str, path: str, value: object) -> Card:
    if not isinstance(value, str) or len(value) > MAX_CARD_CODE:
        raise FormatError(source, path, f"expected a card code, got {describe(value)}")
    try:
        return parse_card(value)
    except NotationError as error:
        raise FormatError(source, path, str(error)) from None


def _card_list(source: str, path: str, value: object) -> tuple[Card, ...]:
    return tuple(
        _card(source, item_path, item)
        for item_path, item in array_items(source, path, value, MAX_CARDS_IN_LIST)
    )


def _cards(fields: Fields, key: str) -> tuple[Card, ...]:
    return _card_list(fields.source, fields.path_of(key), fields.get(key))


def _goods(fields: Fields, key: str) -> Goods:
    """Goods as their capital letters, ``-`` for none (at most all the game's)."""
    text = fields.get(key)
    if (
        not isinstance(text, str)
        or len(text) > TOTAL_GOODS
        or not (text == "-" or (text.isalpha() and text.isascii() and text.isupper()))
    ):
        raise fields.error(
            key, f"expected goods letters like AAP, or - for none, got {quote(text)}"
        )
    try:
        return Goods.parse(text)
    except NotationError as error:
        raise fields.error(key, str(error)) from None


def _village(source: str, path: str, value: object, board: Board) -> str:
    if not isinstance(value, str) or not board.has_village(value):
        raise FormatError(source, path, f"expected a village of the board, got {quote(value)}")
    return value
