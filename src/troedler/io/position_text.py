"""The position text: a whole game state on one line, as FEN is for chess.

:func:`position_text` writes a state as a line of ``key=value`` fields,
:func:`from_position_text` reads it back: ``from_position_text(position_text(state))
== state`` for every state a game can reach, seeded or with explicit chance,
in every phase. The grammar is in ``docs/format.md``.

>>> from troedler import new_game
>>> state = new_game(2, seed=1)
>>> text = position_text(state)
>>> text.split()[:7]
['players=2', 'seed=1', 'shuffles=4', 'round=1', 'phase=take_piles', 'dealer=0', 'to_move=0']
>>> from_position_text(text) == state
True

Text from outside is read without trusting it: anything malformed, hostile
or unreachable raises :class:`~troedler.FormatError` naming the field at
fault (``position: seats[1].hand: ...``), after work bounded by the
length of the text, which is at most :data:`MAX_POSITION_CHARS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from troedler.core.board import Board, default_board
from troedler.core.cards import (
    EXTRA_GOOD,
    MAX_POINTS,
    ROUTE_CARDS,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
    default_cards,
    fingerprint,
)
from troedler.core.datafile import Fields
from troedler.core.errors import ConfigurationError, FormatError, NotationError, quote
from troedler.core.goods import Goods
from troedler.core.limits import MAX_SEED
from troedler.core.rulebook import (
    MAX_CARDS,
    MAX_PLAYERS,
    PLAYER_COUNTS,
    Rules,
    pile_count,
)
from troedler.core.state import GameState, Turn
from troedler.io.fields import (
    STATE_FORMAT,
    STATE_VERSION,
    rules_to_data,
    state_from_fields,
    writable,
)

__all__ = ["MAX_POSITION_CHARS", "card_codes", "from_position_text", "position_text"]

MAX_POSITION_CHARS = 20_000
"""Longest position text read: a real one is a few hundred characters."""
MAX_CARDS_IN_LIST = MAX_CARDS
"""Most cards one list of a position may hold (as in the JSON formats)."""

_SOURCE = "position"

# One letter per card other than a goods request, followed by a count where
# two or more lie together ("s3"); a request is its goods letters (upper
# case) followed by its points, as "AAB5".
_ROUTE_LETTERS = "tbfm"
_LETTER_CARDS: dict[str, Card] = {
    **{letter: ROUTE_CARDS[i] for i, letter in enumerate(_ROUTE_LETTERS)},
    "e": EXTRA_GOOD,
    "s": SPECIAL_FEED,
}
_CARD_LETTERS = {card: letter for letter, card in _LETTER_CARDS.items()}
_NUMBER_DIGITS = len(str(MAX_SEED))
"""The most digits of any number a text holds: the seed's."""
_RUN_DIGITS = len(str(MAX_CARDS))
_POINTS_DIGITS = len(str(MAX_POINTS))
_LIST_ITEM = re.compile(rf"([a-z])([0-9]{{0,{_RUN_DIGITS}}})|([A-Z]+)([0-9]{{1,{_POINTS_DIGITS}}})")

_TEXT_FIELDS = {
    "rules": "players",
    "fingerprint": "board",
    "current_player": "to_move",
    "game_round_pile": "pile",
    "dealer_piles": "piles",
    "discard_pile": "discard",
    "village_goods": "villages",
    "players": "seats",
}
"""The field of the text that holds each field of a state whose name it
does not share, to name it in errors."""
_SEAT_PARTS = ("cart", "hand", "goods", "value_pile")
"""A seat's entries, ``:`` between them."""
_TURN_PARTS = ("played", "delivered_to", "discards_due", "last_discard")
"""A turn's entries, ``:`` between them."""

# Rules options other than the player count, written only where they differ
# from the rulebook's (Rules.for_players), in this order.
_RULE_OPTIONS = (
    "end_threshold",
    "two_player_rules",
    "hand_limit",
    "setup_requests",
    "setup_feed",
    "reshuffle_mid_forming",
    "explicit_chance",
)
_BOOLEAN_OPTIONS = frozenset(("two_player_rules", "reshuffle_mid_forming", "explicit_chance"))
_STATE_KEYS = (
    "seed",
    "shuffles",
    "round",
    "phase",
    "dealer",
    "to_move",
    "pile",
    "piles",
    "discard",
    "villages",
    "seats",
    "turn",
)
_KEYS = ("players", *_RULE_OPTIONS, "board", *_STATE_KEYS)
_OPTIONAL = frozenset((*_RULE_OPTIONS, "board"))
_KEY_ORDER = {key: i for i, key in enumerate(_KEYS)}
_FIELD = re.compile(r"([a-z_]+)=(\S+)\Z")
_PRINTABLE = re.compile(r"[!-~]+(?: [!-~]+)*\Z")


# --- writing -----------------------------------------------------------------


def _card_code(card: Card) -> str:
    if isinstance(card, RequestCard):
        return f"{card.goods}{card.points}"
    return _CARD_LETTERS[card]


def card_codes(cards: Iterable[Card]) -> str:
    """``cards`` as a position text lists them: ``"ts3AAB5"``, ``"-"`` for none.

    >>> from troedler import parse_card
    >>> card_codes(map(parse_card, ["trail", "feed", "feed", "feed", "AAB:5"]))
    'ts3AAB5'
    """
    words: list[str] = []
    run = 0
    last: Card | None = None
    for card in cards:
        if last is not None and type(card) is not RequestCard and card == last:
            run += 1
            continue
        if run > 1:
            words.append(str(run))
        words.append(_card_code(card))
        last, run = card, 1
    if run > 1:
        words.append(str(run))
    return "".join(words) or "-"


def _boolean(value: bool) -> str:
    return "yes" if value else "no"


def position_text(state: GameState) -> str:
    """``state`` as one line of text that :func:`from_position_text` reads back.

    Only a state a game can reach is written (one that passes
    :func:`troedler.check_invariants`); any other raises
    :class:`~troedler.ConfigurationError` naming what is wrong.
    """
    state = writable(state)
    rules = state.rules
    fields = [f"players={rules.num_players}"]
    default = Rules.for_players(rules.num_players)
    for name in _RULE_OPTIONS:
        value = getattr(rules, name)
        if value != getattr(default, name):
            fields.append(f"{name}={_boolean(value) if name in _BOOLEAN_OPTIONS else value}")
    stamp = fingerprint(state.board, state.cards)
    if stamp != fingerprint(default_board(), default_cards()):
        fields.append(f"board={stamp}")
    turn = state.turn
    if turn == Turn():
        turn_text = "-"
    else:
        last = "-" if turn.last_discard is None else _card_code(turn.last_discard)
        delivered = ",".join(turn.delivered_to) or "-"
        turn_text = f"{card_codes(turn.played)}:{delivered}:{turn.discards_due}:{last}"
    piles = "/".join("x" if pile is None else card_codes(pile) for pile in state.dealer_piles)
    fields += [
        f"seed={state.seed}",
        f"shuffles={state.shuffles}",
        f"round={state.round}",
        f"phase={state.phase.name.lower()}",
        f"dealer={state.dealer}",
        f"to_move={'-' if state.current_player is None else state.current_player}",
        f"pile={card_codes(state.game_round_pile)}",
        f"piles={piles or '-'}",
        f"discard={card_codes(state.discard_pile.cards)}",
        "villages=" + "/".join(map(str, state.village_goods)),
        "seats="
        + "/".join(
            f"{p.cart}:{card_codes(p.hand)}:{p.goods}:{card_codes(p.value_pile)}"
            for p in state.players
        ),
        f"turn={turn_text}",
    ]
    return " ".join(fields)


# --- reading -------------------------------------------------------------------
#
# The text is read into the fields of a state's JSON document, and those are
# read by the one reader of them (troedler.io.fields.state_from_fields): the
# text's own grammar is checked here, every field's meaning there, and an
# error there is named by the part of the text that holds the field.


def _error(part: str, message: str) -> FormatError:
    return FormatError(_SOURCE, part, message)


def _short(text: str) -> str:
    return quote(text, 40)


def _number(part: str, text: str) -> int:
    """The whole number ``text``; its range is the field's reader's to check."""
    # Digits only, and no more than any number needs: int() of a long string
    # costs quadratic time, and "+1" or "1_0" are no way to write a number.
    if not text.isdigit() or not text.isascii() or len(text) > _NUMBER_DIGITS:
        raise _error(part, f"expected a whole number, got {_short(text)}")
    return int(text)


def _cards(part: str, text: str) -> tuple[Card, ...]:
    """The cards of one list: ``-`` for none."""
    if text == "-":
        return ()
    found: list[Card] = []
    position = 0
    for match in _LIST_ITEM.finditer(text):
        if match.start() != position:
            break
        position = match.end()
        letter, count, goods, points = match.groups()
        cards: tuple[Card, ...]
        if letter is None:
            cards = (_request(f"{part}[{len(found)}]", goods, points),)
        else:
            card = _LETTER_CARDS.get(letter)
            if card is None:
                raise _error(
                    part, f"card {len(found)}: {_short(letter)} is no card (t b f m e s or AAB5)"
                )
            times = int(count) if count else 1
            if not 1 <= times <= MAX_CARDS_IN_LIST:
                raise _error(
                    f"{part}[{len(found)}]", f"expected 1 to {MAX_CARDS_IN_LIST}, got {times}"
                )
            cards = (card,) * times
        if len(found) + len(cards) > MAX_CARDS_IN_LIST:
            raise _error(part, f"holds more than {MAX_CARDS_IN_LIST} cards")
        found.extend(cards)
    if position != len(text):
        raise _error(
            part,
            f"card {len(found)}: {_short(text[position:])} is no card "
            "(t b f m e s, a request like AAB5, or - for none)",
        )
    return tuple(found)


def _codes(part: str, text: str) -> list[str]:
    """The cards of one list as the state's fields write them."""
    return [str(card) for card in _cards(part, text)]


def _request(part: str, goods_text: str, points_text: str) -> RequestCard:
    points = int(points_text)
    if not 1 <= points <= MAX_POINTS:
        raise _error(part, f"expected 1 to {MAX_POINTS} points, got {points}")
    try:
        return RequestCard(Goods.parse(goods_text), points)
    except (NotationError, ConfigurationError, ValueError) as error:
        raise _error(part, f"no goods request: {error}") from None


def _items(part: str, text: str, separator: str, most: int) -> list[str]:
    items = text.split(separator, most)
    if len(items) > most:
        raise _error(part, f"holds more than {most} entries")
    return items


def _fields(text: object) -> dict[str, str]:
    if not isinstance(text, str):
        raise _error("", f"expected a position text, got {type(text).__name__}")
    if len(text) > MAX_POSITION_CHARS:
        raise _error("", f"is {len(text)} characters, more than {MAX_POSITION_CHARS}")
    text = text.strip()
    if not _PRINTABLE.match(text):
        raise _error("", "expected printable ASCII fields key=value, each separated by one space")
    fields: dict[str, str] = {}
    last = -1
    for word in text.split(" ", len(_KEYS)):
        match = _FIELD.match(word)
        if match is None:
            raise _error("", f"expected a field key=value, got {_short(word)}")
        key, value = match.groups()
        if key not in _KEY_ORDER:
            raise _error(key, f"unknown field; expected one of {', '.join(_KEYS)}")
        if key in fields:
            raise _error(key, "is given twice")
        if _KEY_ORDER[key] < last:
            raise _error(key, f"comes out of order; the order is {' '.join(_KEYS)}")
        last = _KEY_ORDER[key]
        fields[key] = value
    for key in _KEYS:
        if key not in fields and key not in _OPTIONAL:
            raise _error(key, "is missing")
    return fields


def _rules(fields: dict[str, str], players: int) -> dict[str, object]:
    """The rules' fields: the rulebook's for the player count, and the options given."""
    data: dict[str, object] = (
        rules_to_data(Rules.for_players(players))
        if players in PLAYER_COUNTS
        else {"num_players": players}
    )
    for name in _RULE_OPTIONS:
        if name not in fields:
            continue
        value = fields[name]
        if name in _BOOLEAN_OPTIONS:
            if value not in ("yes", "no"):
                raise _error(name, f"expected yes or no, got {_short(value)}")
            data[name] = value == "yes"
        else:
            data[name] = _number(name, value)
    return data


def _stamp(fields: dict[str, str], board: Board, cards: CardCatalogue) -> str:
    """The fingerprint the text names: troedler's own board and cards where
    it names none."""
    if "board" in fields:
        return fields["board"]
    if fingerprint(board, cards) != fingerprint(default_board(), default_cards()):
        raise _error(
            "board",
            f"is missing: the text is of troedler's own board and cards, not of "
            f"those passed ({fingerprint(board, cards)!r})",
        )
    return fingerprint(board, cards)


def _document(fields: dict[str, str], board: Board, cards: CardCatalogue) -> dict[str, object]:
    """The fields of a state's JSON document that the text holds."""
    players = _number("players", fields["players"])
    seats = players if players in PLAYER_COUNTS else MAX_PLAYERS
    villages = _items("villages", fields["villages"], "/", len(board.villages))
    if len(villages) != len(board.villages):
        raise _error(
            "villages", f"expected goods for {len(board.villages)} villages, got {len(villages)}"
        )
    piles = fields["piles"]
    to_move = fields["to_move"]
    return {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "rules": _rules(fields, players),
        "fingerprint": _stamp(fields, board, cards),
        "seed": _number("seed", fields["seed"]),
        "shuffles": _number("shuffles", fields["shuffles"]),
        "round": _number("round", fields["round"]),
        "dealer": _number("dealer", fields["dealer"]),
        "phase": fields["phase"],
        "current_player": None if to_move == "-" else _number("to_move", to_move),
        "game_round_pile": _codes("pile", fields["pile"]),
        "dealer_piles": [
            None if item == "x" else _codes(f"piles[{j}]", item)
            for j, item in enumerate(
                () if piles == "-" else _items("piles", piles, "/", pile_count(seats))
            )
        ],
        "discard_pile": _codes("discard", fields["discard"]),
        "village_goods": {
            village.name: goods for village, goods in zip(board.villages, villages, strict=True)
        },
        "players": [
            _seat(f"seats[{i}]", item)
            for i, item in enumerate(_items("seats", fields["seats"], "/", seats))
        ],
        "turn": _turn(fields["turn"], board),
    }


def _seat(part: str, text: str) -> dict[str, object]:
    entries = _items(part, text, ":", len(_SEAT_PARTS))
    if len(entries) != len(_SEAT_PARTS):
        raise _error(part, "expected cart:hand:goods:value-pile")
    cart, hand, goods, value_pile = entries
    return {
        "cart": cart,
        "hand": _codes(f"{part}.hand", hand),
        "goods": goods,
        "value_pile": _codes(f"{part}.value_pile", value_pile),
    }


def _turn(text: str, board: Board) -> dict[str, object]:
    if text == "-":
        played, delivered, due, last = "-", "-", "0", "-"
    else:
        entries = _items("turn", text, ":", len(_TURN_PARTS))
        if len(entries) != len(_TURN_PARTS):
            raise _error("turn", "expected - or played:delivered:discards-due:last-discard")
        played, delivered, due, last = entries
    last_cards = _codes("turn.last_discard", last)
    if len(last_cards) > 1:
        raise _error("turn.last_discard", "expected one card or -")
    return {
        "played": _codes("turn.played", played),
        "delivered_to": (
            []
            if delivered == "-"
            else _items("turn.delivered", delivered, ",", len(board.villages))
        ),
        "discards_due": _number("turn.discards_due", due),
        "last_discard": last_cards[0] if last_cards else None,
    }


def _part(field: str, board: Board) -> str:
    """The part of the text that holds the state's ``field`` (``players[1].cart``)."""
    head, _, rest = field.partition(".")
    name, bracket, index = head.partition("[")
    if name == "rules":
        return rest if rest and rest != "num_players" else "players"
    if name == "village_goods" and board.has_village(rest):
        return f"villages[{board.index(rest)}] ({rest})"
    if name == "turn" and rest.startswith("delivered_to"):
        rest = "delivered"
    return _TEXT_FIELDS.get(name, name) + bracket + index + (f".{rest}" if rest else "")


def from_position_text(
    text: str, *, board: Board | None = None, cards: CardCatalogue | None = None
) -> GameState:
    """The game state written as ``text`` by :func:`position_text`.

    ``board`` and ``cards`` default to troedler's own; a position of a game
    played with others names their fingerprint in its ``board`` field and
    needs them passed in. Raises :class:`~troedler.FormatError` naming the
    part of the text at fault for anything that is not a position a game
    can reach.
    """
    fields = _fields(text)
    board = default_board() if board is None else board
    cards = default_cards() if cards is None else cards
    document = _document(fields, board, cards)
    try:
        return state_from_fields(Fields(_SOURCE, "", document), board, cards)
    except FormatError as error:
        raise _error(_part(error.field, board), error.message) from None
