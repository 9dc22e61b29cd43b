"""Game states as JSON, and reading them back without trusting the text.

``state_from_json(state_to_json(state)) == state`` for every reachable state.
Text from outside is checked field by field: anything malformed or hostile
raises :class:`FormatError` whose message gives the path of the offending
field (``players[2].hand[0]``), and no partly built state ever escapes.
The format is documented in ``docs/format.md``.
"""

from __future__ import annotations

import json
from typing import Any

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
from troedler.core.rulebook import MAX_CARDS, OPTION_RANGES, Rules, pile_count
from troedler.core.state import GameState, Phase, PlayerState, Turn

__all__ = [
    "MAX_JSON_CHARS",
    "MAX_JSON_CONTAINERS",
    "MAX_JSON_DEPTH",
    "STATE_FORMAT",
    "STATE_VERSION",
    "fingerprint",
    "load_json",
    "state_from_json",
    "state_to_json",
]

STATE_FORMAT = "troedler-state"
STATE_VERSION = 2
MAX_JSON_CHARS = 4_000_000
"""Longest JSON text accepted, in characters: far beyond any real game."""
MAX_JSON_DEPTH = 8
"""Deepest nesting of arrays and objects accepted; troedler's documents need 4."""
MAX_JSON_CONTAINERS = 2_000
"""Most ``[`` and ``{`` a text may hold, strings included: a state needs about
30, a record about 10 (and seat names may hold a few). Counted before
parsing, so a text of a million empty objects costs milliseconds."""
SEED_RANGE = (MIN_SEED, MAX_SEED)
"""The seeds a document may hold (see :mod:`troedler.core.limits`)."""
MAX_CARDS_IN_LIST = MAX_CARDS
"""Most cards one list of a document may hold."""


# --- writing -----------------------------------------------------------------


def rules_to_data(rules: Rules) -> dict[str, Any]:
    """The rules as a JSON-ready table."""
    data: dict[str, Any] = {
        "num_players": rules.num_players,
        "end_threshold": rules.end_threshold,
        "two_player_rules": rules.two_player_rules,
        "hand_limit": rules.hand_limit,
        "setup_requests": rules.setup_requests,
        "setup_feed": rules.setup_feed,
        "reshuffle_mid_forming": rules.reshuffle_mid_forming,
    }
    # Written only when on, so that seeded games read as before.
    if rules.explicit_chance:
        data["explicit_chance"] = True
    return data


def _codes(cards: Any) -> list[str]:
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
    found = problems(state)
    if found:
        raise ConfigurationError(
            "cannot write a state no game can reach: " + some_of(found, 3, separator="; ")
        )
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
        if len(text) > 4 * MAX_JSON_CHARS:
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


def check_version(top: Fields, expected_format: str, newest: int) -> int:
    """Check the ``format`` and ``version`` fields of a document; its version.

    Every version from 1 to ``newest`` is read.
    """
    found = top.get("format")
    if found != expected_format:
        raise top.error("format", f"expected {expected_format!r}, got {describe(found)}")
    number = top.get("version")
    if type(number) is not int or not 1 <= number <= newest:
        raise top.error(
            "version", f"unknown format version {describe(number)}; this reads 1 to {newest}"
        )
    return number


def rules_from_data(fields: Fields) -> Rules:
    """Rules from their JSON table."""
    fields.only(*rules_to_data(Rules.for_players(2, explicit_chance=True)))
    explicit = fields.boolean("explicit_chance") if "explicit_chance" in fields.table else False
    try:
        return Rules(
            num_players=fields.integer("num_players", 2, 4),
            end_threshold=fields.integer("end_threshold", *OPTION_RANGES["end_threshold"]),
            two_player_rules=fields.boolean("two_player_rules"),
            hand_limit=fields.integer("hand_limit", *OPTION_RANGES["hand_limit"]),
            setup_requests=fields.integer("setup_requests", *OPTION_RANGES["setup_requests"]),
            setup_feed=fields.integer("setup_feed", *OPTION_RANGES["setup_feed"]),
            reshuffle_mid_forming=fields.boolean("reshuffle_mid_forming"),
            explicit_chance=explicit,
        )
    except ConfigurationError as error:
        raise fields.error("", str(error)) from None


def board_and_cards(
    fields: Fields, board: Board | None, cards: CardCatalogue | None
) -> tuple[Board, CardCatalogue]:
    """The board and cards to read a document with, checked against its fingerprint."""
    board = default_board() if board is None else board
    cards = default_cards() if cards is None else cards
    found = fields.get("fingerprint")
    expected = fingerprint(board, cards)
    if found != expected:
        raise fields.error(
            "fingerprint",
            f"the game used another board or cards ({describe(found)}); "
            f"these give {expected!r}: pass the board and cards it was played with",
        )
    return board, cards


def _card(path: str, value: object, source: str) -> Card:
    if not isinstance(value, str) or len(value) > 40:
        raise FormatError(source, path, f"expected a card code, got {describe(value)}")
    try:
        return parse_card(value)
    except NotationError as error:
        raise FormatError(source, path, str(error)) from None


def _card_list(source: str, path: str, value: object) -> tuple[Card, ...]:
    return tuple(
        _card(item_path, item, source)
        for item_path, item in array_items(source, path, value, MAX_CARDS_IN_LIST)
    )


def _cards(fields: Fields, key: str) -> tuple[Card, ...]:
    return _card_list(fields.source, fields.path_of(key), fields.get(key))


def _goods(fields: Fields, key: str) -> Goods:
    text = fields.get(key)
    if not isinstance(text, str) or len(text) > TOTAL_GOODS:
        raise fields.error(key, f"expected goods like 'AAP' or '-', got {describe(text)}")
    try:
        return Goods.parse(text)
    except NotationError as error:
        raise fields.error(key, str(error)) from None


def _village(source: str, path: str, value: object, board: Board) -> str:
    if not isinstance(value, str) or not board.has_village(value):
        raise FormatError(source, path, f"expected a village of the board, got {describe(value)}")
    return value


_STATE_KEYS = (
    "format", "version", "rules", "fingerprint", "seed", "shuffles", "round", "dealer",
    "phase", "current_player", "game_round_pile", "dealer_piles", "discard_pile",
    "village_goods", "players", "turn",
)  # fmt: skip


def state_from_json(
    text: str | bytes, *, board: Board | None = None, cards: CardCatalogue | None = None
) -> GameState:
    """The game state written as ``text`` by :func:`state_to_json`.

    ``board`` and ``cards`` default to troedler's own; a state of a game
    played with others needs them passed in (the fingerprint must match).
    Raises :class:`FormatError` naming the offending field.
    """
    top = Fields("state", "", load_json(text, "state"))
    return state_from_fields(top, board, cards)


def state_from_fields(top: Fields, board: Board | None, cards: CardCatalogue | None) -> GameState:
    """A game state from its checked JSON table."""
    top.only(*_STATE_KEYS)
    version = check_version(top, STATE_FORMAT, STATE_VERSION)
    rules = rules_from_data(top.table_at("rules"))
    board, cards = board_and_cards(top, board, cards)
    n = rules.num_players
    phase_name = top.get("phase")
    phases = {phase.name.lower(): phase for phase in Phase}
    if not isinstance(phase_name, str) or phase_name not in phases:
        raise top.error("phase", f"expected one of {', '.join(phases)}, got {describe(phase_name)}")
    piles: list[tuple[Card, ...] | None] = []
    for path, value in top.items("dealer_piles", pile_count(n)):
        if value is None:
            piles.append(None)
            continue
        piles.append(_card_list(top.source, path, value))
    village_table = top.table_at("village_goods")
    names = [village.name for village in board.villages]
    village_table.only(*names)
    village_goods = tuple(_goods(village_table, name) for name in names)
    players = []
    for path, value in top.items("players", 4):
        entry = Fields(top.source, path, value)
        entry.only("cart", "hand", "goods", "value_pile")
        cart = _village(top.source, entry.path_of("cart"), entry.get("cart"), board)
        players.append(
            PlayerState(
                cart=cart,
                hand=sort_hand(_cards(entry, "hand")),
                goods=_goods(entry, "goods"),
                value_pile=sort_hand(_cards(entry, "value_pile")),
            )
        )
    if len(players) != n:
        raise top.error("players", f"expected {n} players for these rules, got {len(players)}")
    turn = top.table_at("turn")
    delivered = tuple(
        _village(top.source, path, value, board)
        for path, value in turn.items("delivered_to", len(names))
    )
    # Version 1 knew no pending discards: its turns end in one move.
    discards_due, last_discard = 0, None
    if version == 1:
        turn.only("played", "delivered_to")
    else:
        turn.only("played", "delivered_to", "discards_due", "last_discard")
        discards_due = turn.integer("discards_due", 0, MAX_CARDS_IN_LIST)
        if turn.get("last_discard") is not None:
            last_discard = _card(turn.path_of("last_discard"), turn.get("last_discard"), top.source)
    state = GameState(
        rules=rules,
        board=board,
        cards=cards,
        seed=top.integer("seed", *SEED_RANGE),
        shuffles=top.integer("shuffles", 0, MAX_SHUFFLES),
        round=top.integer("round", 1, MAX_ROUNDS),
        dealer=top.integer("dealer", 0, n - 1),
        phase=phases[phase_name],
        current_player=top.optional_integer("current_player", 0, n - 1),
        game_round_pile=_cards(top, "game_round_pile"),
        dealer_piles=tuple(piles),
        discard_pile=Pile.of(_cards(top, "discard_pile")),
        village_goods=village_goods,
        players=tuple(players),
        turn=Turn(_cards(turn, "played"), delivered, discards_due, last_discard),
    )
    found = located_problems(state)
    if found:
        # The first problem, named by the field at fault (the JSON keys are
        # the state's field names).
        field, problem = found[0]
        raise top.error(field, f"is not a state a game can reach: {problem}")
    return state
